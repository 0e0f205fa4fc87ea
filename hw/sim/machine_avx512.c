/* hw/sim/machine_avx512.c: hw/sim/machine.c's μop path compiled a third
 * time, for hosts that have AVX-512 (F and VL) besides AVX2, BMI1 and
 * BMI2 (x86-64, GCC: MMU_HAVE_AVX2 of hw/sim/machine_int.h), which
 * mmu_stream_run() runs on such a host.  The simulated machine is the
 * same; the host does its work in fewer instructions: a set of 16 ways
 * (the L3 model's) is compared in one instruction and moved in one
 * permutation or rotation (hw/sim/sa.h), a miss in a set of 8 or 4 is
 * one rotation too, and a tag is broadcast to a vector straight from a
 * general register.  Defines mmu_stream_run_avx512() only.  The target
 * is set before any header, as in hw/sim/machine_avx2.c. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC target("avx2,bmi,bmi2,avx512f,avx512vl")
#define MMU_SIM_AVX2 1
#define MMU_SIM_AVX512 1
#include "hw/sim/machine.c"
#else
/* ISO C: a translation unit declares something */
typedef int mmu_avx512_none;
#endif
