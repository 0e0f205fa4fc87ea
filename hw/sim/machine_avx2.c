/* hw/sim/machine_avx2.c: hw/sim/machine.c's μop path compiled a second
 * time, for hosts with AVX2, BMI1 and BMI2 (x86-64, GCC: MMU_HAVE_AVX2 of
 * hw/sim/machine_int.h, whose condition this repeats), which
 * mmu_stream_run() runs on such a host.  The simulated machine is the
 * same; the host does its work in fewer instructions: the tag scans of
 * hw/sim/sa.h compare 8 ways in one instruction (16 in two) and move a
 * set's ranks with lane permutations, and the bit operations have BMI's
 * and VEX's three-operand forms.  Defines mmu_stream_run_avx2() only.
 * The target is set before any header, so that the headers (sa.h's
 * __AVX2__ scans, the intrinsics) are read for it. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC target("avx2,bmi,bmi2")
#define MMU_SIM_AVX2 1
#include "hw/sim/machine.c"
#else
/* ISO C: a translation unit declares something */
typedef int mmu_avx2_none;
#endif
