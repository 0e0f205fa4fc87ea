# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/browser.py: headless Chromium driven over the DevTools
# protocol on a pipe (--remote-debugging-pipe: commands on its fd 3,
# replies on fd 4, each a JSON message ended by NUL), with python3's
# standard library only.  The pages under test forbid scripts (their
# Content-Security-Policy); what runs here is the protocol's own
# evaluation, from outside the page, which the policy does not govern.
import base64
import json
import os
import select
import subprocess
import time


class Browser:
    def __init__(self, path, profile, width=1280, height=800, timeout=120):
        r3, w3 = os.pipe()     # its commands
        r4, w4 = os.pipe()     # its replies
        self.timeout = timeout

        def child():
            a, b = os.dup(r3), os.dup(w4)
            os.dup2(a, 3)      # dup2 leaves 3 and 4 inheritable
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [path, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--remote-debugging-pipe", "--user-data-dir=" + profile,
             "--no-first-run", "--no-default-browser-check", "about:blank"],
            close_fds=False, preexec_fn=child, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, HOME=profile))
        os.close(r3)
        os.close(w4)
        self.out, self.inp = w3, r4
        self.buf, self.next_id, self.events = b"", 0, []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.size(width, height)

    def _message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.inp], [], [], left)[0]:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self.inp, 1 << 20)
            if not chunk:
                raise EOFError("chromium exited")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=False, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.out, data):]
        deadline = time.time() + self.timeout
        while True:
            r = self._message(deadline)
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r.get("result", {})
            self.events.append(r)

    def size(self, width, height):
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width,
                  height=height, deviceScaleFactor=1, mobile=False)

    def open(self, path):
        """Load a file and wait for its load event."""
        self.events = []
        self.call("Page.navigate", session=True, url="file://" + os.path.abspath(path))
        deadline = time.time() + self.timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._message(deadline))

    def boxes(self, selector):
        """[left, top, right, bottom] in the page of each element matching."""
        return self.eval("Array.from(document.querySelectorAll(%s)).map(e => {"
                         " const r = e.getBoundingClientRect();"
                         " return [r.left + scrollX, r.top + scrollY, r.right + scrollX,"
                         " r.bottom + scrollY]; })" % json.dumps(selector))

    def eval(self, expression):
        r = self.call("Runtime.evaluate", session=True, expression=expression,
                      returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"])
        return r["result"].get("value")

    def screenshot(self, path, box=None):
        """The window, or box = [left, top, right, bottom] of the page; a
        PNG, or a WebP (quality 100: a third smaller) when path ends in
        .webp."""
        params = {"format": "png"}
        if path.endswith(".webp"):
            params = {"format": "webp", "quality": 100}
        if box:
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": box[0], "y": box[1], "width": box[2] - box[0],
                              "height": box[3] - box[1], "scale": 1}
        data = self.call("Page.captureScreenshot", session=True, **params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close")
        except (EOFError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.out)
        os.close(self.inp)


# What the tests ask of a page, evaluated in it: every <details> opened
# (so that folded plots are laid out too), then
#  - summary: the answer's box (its top and bottom, and the window's height);
#  - overlaps: pairs of text boxes in one SVG that intersect (by more
#    than half a pixel each way), with their texts;
#  - overflow: elements whose box passes the window's right edge, and
#    the page's own scroll width.
MEASURE = r"""
(() => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  const sel = %s;
  const s = document.querySelector(sel);
  const r = s ? s.getBoundingClientRect() : null;
  const out = {summary: r && {top: r.top + window.scrollY, bottom: r.bottom + window.scrollY},
               height: window.innerHeight, width: document.documentElement.clientWidth,
               scrollWidth: document.documentElement.scrollWidth, overlaps: [], overflow: [],
               texts: 0, svgs: 0, smallest: 1e9};
  document.querySelectorAll('svg').forEach(svg => {
    out.svgs++;
    const boxes = [];
    svg.querySelectorAll('text').forEach(t => {
      const b = t.getBoundingClientRect();
      if (b.width > 0 && b.height > 0 && t.textContent.trim()) {
        boxes.push([b, t.textContent]);
        out.smallest = Math.min(out.smallest, b.height);
      }
    });
    out.texts += boxes.length;
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i][0], b = boxes[j][0];
        if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
            Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5)
          out.overlaps.push([boxes[i][1], boxes[j][1]]);
      }
  });
  document.querySelectorAll('body *').forEach(e => {
    const b = e.getBoundingClientRect();
    if (b.width > 0 && b.right > out.width + 0.5)
      out.overflow.push(e.tagName + '.' + (e.getAttribute('class') || '') + ': ' +
                        (e.textContent || '').slice(0, 60));
  });
  out.overflow = out.overflow.slice(0, 10);
  out.overlaps = out.overlaps.slice(0, 10);
  return out;
})()
"""


def measure(browser, summary_selector):
    return browser.eval(MEASURE % json.dumps(summary_selector))
