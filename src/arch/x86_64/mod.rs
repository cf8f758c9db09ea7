//! x86-64 paths: AVX2 (+FMA) and AVX-512 (F, VL, BW, DQ).

/// `DotVec::fma_x` and `fma_x_tail` (a row of consecutive columns) for a register type
/// `$name` of values `$t`, shared by both widths: plain loads of `vals` and `x`
/// (`$load`) and one `$fmadd`; the tail loads both by the masked expression `$mload`,
/// in which `$p` is the pointer and `$n` the number of lanes to read.
macro_rules! run_fma {
    ($name:ident, $t:ty, $load:ident, $fmadd:ident, tail($p:ident, $n:ident) => $mload:expr) => {
        #[inline(always)]
        unsafe fn fma_x(acc: Self, vals: *const $t, x: *const $t) -> Self {
            // SAFETY: the caller promises the width's target features and a register of
            // elements at both pointers.
            unsafe { $name($fmadd($load(vals), $load(x), acc.0)) }
        }
        #[inline(always)]
        unsafe fn fma_x_tail(acc: Self, vals: *const $t, x: *const $t, $n: usize) -> Self {
            // SAFETY: the caller promises the width's target features; the masked loads
            // read only the low `$n` lanes, which the caller promises readable.
            unsafe {
                let v = {
                    let $p = vals;
                    $mload
                };
                let w = {
                    let $p = x;
                    $mload
                };
                $name($fmadd(v, w, acc.0))
            }
        }
    };
}

/// One `DotVec` impl (`generic::spmv_csr`) of an x86-64 width for the register type
/// `$name<L>` of `$w` lanes of `$t` values with `$i` indices: arithmetic by the width's
/// intrinsics (`$zero`, the broadcast `$splat`, `$load`, `$mul`, `$fmadd`, `$add`,
/// `$store`, the lane sum `$sum`), `x` by the width's clamped gather (`$gather`, or with
/// `L` its scalar loads `$loads`, lanes past the count zero), run load (`$run`) and
/// masked tail (`$tail`, a register of `$t`, or with `L` the loads and `$mload`), and
/// with `stencil` the width's stencil block of `$sw` rows (`stencil_rows` over the
/// width's `Block`). Every (value, index) pair of both widths is one invocation, so the
/// trait's contract is written once; both ways of reading `x` give the same lanes, so the
/// same bits.
macro_rules! dot_vec {
    (
        $name:ident: $t:ty, $i:ty, lanes $w:expr, max_x $max_x:expr;
        zero $zero:ident, splat $splat:ident, load $load:ident, mul $mul:ident,
        fmadd $fmadd:ident, add $add:ident, store $store:ident;
        sum |$v:ident| { $($sum:tt)* };
        gather $gather:ident, loads $loads:ident, run $run:ident;
        tail |$acc:ident, $vals:ident, $cols:ident, $x:ident, $xmax:ident, $n:ident| { $($tail:tt)* };
        run_tail |$p:ident, $pn:ident| $mload:expr
        $(; stencil $sw:literal)?
    ) => {
        impl<const L: bool> DotVec for $name<L> {
            type T = $t;
            type I = $i;
            const W: usize = $w;
            const MAX_X: usize = $max_x;
            const SHORT: usize = 8;
            const MASKED_SHORT: bool = true;
            $(
                const STENCIL_W: usize = $sw;

                #[inline(always)]
                unsafe fn stencil<const B0: bool>(
                    rp: &[$i],
                    cols: &[$i],
                    vals: &[$t],
                    x: &[$t],
                    alpha: $t,
                    beta: $t,
                    y: &mut [$t],
                ) -> bool {
                    // SAFETY: the caller promises the width's target features; the block
                    // bounds its reads and writes.
                    unsafe { stencil_rows::<Self, Block, $sw, B0>(rp, cols, vals, x, alpha, beta, y) }
                }
            )?

            run_fma!($name, $t, $load, $fmadd, tail($p, $pn) => $mload);

            #[inline(always)]
            unsafe fn zero() -> Self {
                // SAFETY: the caller promises the width's target features.
                $name(unsafe { $zero() })
            }
            #[inline(always)]
            unsafe fn mul(vals: *const $t, cols: *const $i, x: *const $t, xmax: usize) -> Self {
                // SAFETY: the caller promises the features, a register of readable
                // `vals`/`cols` and `xmax < x.len()`, `xmax < MAX_X`: clamped offsets
                // address `x[..=xmax]`.
                unsafe { $name($mul($load(vals), if L { $loads(cols, x, xmax, $w) } else { $gather(cols, x, xmax) })) }
            }
            #[inline(always)]
            unsafe fn mul_run(vals: *const $t, cols: *const $i, x: *const $t, xmax: usize) -> Self {
                // SAFETY: as `mul`; the run load bounds its read of a run.
                unsafe { $name($mul($load(vals), $run::<L>(cols, x, xmax))) }
            }
            #[inline(always)]
            unsafe fn put<const B0: bool>(self, alpha: $t, beta: $t, y: *mut $t) {
                // SAFETY: the caller promises the width's target features and `W`
                // readable and writable elements at `y` (read only without `B0`).
                unsafe {
                    let a = $mul($splat(alpha), self.0);
                    let r = if B0 { a } else { $add(a, $mul($splat(beta), $load(y))) };
                    $store(y, r);
                }
            }
            #[inline(always)]
            unsafe fn fma(acc: Self, vals: *const $t, cols: *const $i, x: *const $t, xmax: usize) -> Self {
                // SAFETY: as `mul`.
                unsafe { $name($fmadd($load(vals), if L { $loads(cols, x, xmax, $w) } else { $gather(cols, x, xmax) }, acc.0)) }
            }
            #[inline(always)]
            unsafe fn fma_run(
                acc: Self,
                vals: *const $t,
                cols: *const $i,
                x: *const $t,
                xmax: usize,
            ) -> Self {
                // SAFETY: as `mul`; the run load bounds its read of a run.
                unsafe { $name($fmadd($load(vals), $run::<L>(cols, x, xmax), acc.0)) }
            }
            #[inline(always)]
            unsafe fn fma_tail(
                $acc: Self,
                $vals: *const $t,
                $cols: *const $i,
                $x: *const $t,
                $xmax: usize,
                $n: usize,
            ) -> Self {
                // SAFETY: the masked loads and the masked gather touch only the low `n`
                // lanes, which the caller promises readable; offsets are clamped as in
                // `mul`; the scalar loads read `cols[..n]` and clamp as well.
                $name(unsafe {
                    if L {
                        let v = {
                            let ($p, $pn) = ($vals, $n);
                            $mload
                        };
                        $fmadd(v, $loads($cols, $x, $xmax, $n), $acc.0)
                    } else {
                        $($tail)*
                    }
                })
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                // SAFETY: the caller promises the width's target features.
                $name(unsafe { $add(a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn sum(self) -> $t {
                let $v = self.0;
                // SAFETY: register operations only; the caller promises the width's
                // target features.
                unsafe { $($sum)* }
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut $t) {
                // SAFETY: the caller promises a register of writable elements.
                unsafe { $store(out, self.0) }
            }
        }
    };
}

use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};

/// One `MergeVec` impl (`generic::merge`) of an x86-64 width: a register `$reg` of `$w`
/// keys `$t`, loaded and stored unaligned (`$load`, `$store`) and mapped into the
/// signed-ordered domain and back by `$ord` (an involution), merged by the width's
/// bitonic network `$net`. Every key type of both widths is one invocation.
macro_rules! merge_vec {
    ($name:ident($reg:ty): $t:ty, lanes $w:literal; load $load:ident, store $store:ident, ord $ord:ident, network $net:ident) => {
        /// One register of keys in the signed-ordered domain.
        #[derive(Clone, Copy)]
        pub(crate) struct $name($reg);

        impl MergeVec for $name {
            type Elem = $t;
            const W: usize = $w;

            #[inline(always)]
            unsafe fn load(p: *const $t) -> Self {
                // SAFETY: the caller promises `p` is valid for `W` keys (one register;
                // unaligned load) and the width's target features.
                unsafe { $name($ord($load(p.cast()))) }
            }

            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                // SAFETY: the caller promises `p` is valid for writing `W` keys (one
                // register; unaligned store) and the width's target features.
                unsafe { $store(p.cast(), $ord(self.0)) }
            }

            #[inline(always)]
            unsafe fn network(a: Self, b: Self) -> (Self, Self) {
                // SAFETY: the caller promises the width's target features; no memory is
                // touched.
                let (lo, hi) = unsafe { $net(a.0, b.0) };
                ($name(lo), $name(hi))
            }
        }
    };
}

/// One `HeapVec` impl (`generic::heap`) of an x86-64 width: a child group of `d` keys
/// `$t`; the k-selection scan compares `scan` keys (one register loaded by `$load`,
/// mapped by `$ord`) against the root with `$displace`. The best child is found in the
/// register by `$best`, or with `best scalar` by the portable search (where the width's
/// horizontal search is the longer chain; see the width's `heap.rs`). Every key type of
/// both widths is one invocation.
macro_rules! heap_vec {
    ($name:ident: $t:ty, d $d:literal; load $load:ident, ord $ord:ident, best $best:ident, displace $displace:ident) => {
        heap_vec!(@impl $name: $t, d $d, scan $d, $load, $ord, $displace, |p| {
            // SAFETY: the caller promises `p` is valid for `D` keys (one register;
            // unaligned load) and the width's target features.
            unsafe { $best::<MIN>($ord($load(p.cast()))) }
        });
    };
    ($name:ident: $t:ty, d $d:literal, scan $scan:literal; load $load:ident, ord $ord:ident, best scalar, displace $displace:ident) => {
        heap_vec!(@impl $name: $t, d $d, scan $scan, $load, $ord, $displace, |p| {
            // SAFETY: the caller promises `p` is valid for `D` keys.
            unsafe { <$crate::arch::portable::heap::Scalar<$t, $d> as HeapVec>::best::<MIN>(p) }
        });
    };
    (@impl $name:ident: $t:ty, d $d:literal, scan $scan:literal, $load:ident, $ord:ident, $displace:ident, |$p:ident| $best:block) => {
        /// One child group of `D` keys; the k-selection scan compares `SCAN` keys (one
        /// register) against the root at once.
        pub(crate) struct $name;

        impl HeapVec for $name {
            type Elem = $t;
            const D: usize = $d;
            const SCAN: usize = $scan;

            #[inline(always)]
            unsafe fn best<const MIN: bool>($p: *const $t) -> usize $best

            #[inline(always)]
            unsafe fn displace_mask<const MIN: bool>(p: *const $t, root: $t) -> u32 {
                // SAFETY: the caller promises `p` is valid for `SCAN` keys (one register;
                // unaligned load) and the width's target features.
                unsafe { $displace::<MIN>($ord($load(p.cast())), root.ord()) }
            }
        }
    };
}

/// One register of SpMM sums (`generic::spmm::MmVec`) from its intrinsics.
macro_rules! mm_vec {
    ($name:ident($reg:ty): $t:ty, lanes $w:literal, half $half:ty;
        splat $splat:ident, load $load:ident, store $store:ident,
        fmadd $fmadd:ident, mul $mul:ident, add $add:ident) => {
        /// One register of SpMM sums.
        #[derive(Clone, Copy)]
        pub(crate) struct $name($reg);

        impl MmVec for $name {
            type T = $t;
            type Half = $half;
            const W: usize = $w;
            #[inline(always)]
            unsafe fn splat(v: $t) -> Self {
                // SAFETY: the caller promises the width's target features.
                $name(unsafe { $splat(v) })
            }
            #[inline(always)]
            unsafe fn load(p: *const $t) -> Self {
                // SAFETY: the caller promises the features and a register of readable
                // elements at `p` (unaligned load).
                $name(unsafe { $load(p) })
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                // SAFETY: the caller promises the features and a register of writable
                // elements at `p` (unaligned store).
                unsafe { $store(p, self.0) }
            }
            #[inline(always)]
            unsafe fn fma(acc: Self, a: Self, b: Self) -> Self {
                // SAFETY: the caller promises the width's target features.
                $name(unsafe { $fmadd(a.0, b.0, acc.0) })
            }
            #[inline(always)]
            unsafe fn mul(a: Self, b: Self) -> Self {
                // SAFETY: the caller promises the width's target features.
                $name(unsafe { $mul(a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                // SAFETY: the caller promises the width's target features.
                $name(unsafe { $add(a.0, b.0) })
            }
        }
    };
}

pub(crate) mod avx2;
pub(crate) mod avx512;

/// The x86-64 widths this CPU and its operating system support, asked by `CPUID` and
/// `XGETBV` directly rather than through `std` (`is_x86_feature_detected!`), so builds
/// without `std` (kernels, firmware, unikernels) detect AVX2 and AVX-512 at run time too:
/// `(avx2 && fma, avx512 f/vl/bw/dq && popcnt)`. A width counts only where the OS saves
/// its registers (`OSXSAVE`, and the `XCR0` bits of the YMM, and for AVX-512 the opmask
/// and ZMM state), as `std`'s detection also requires. (Under Miri the detection takes the
/// compile-time features instead.)
///
/// Written here rather than taken from `cpufeatures` (RustCrypto's no_std detection,
/// which checks the same CPUID bits and XCR0 masks): `cpufeatures` answers `false` without
/// asking the CPU on `target_os = "none"` and `"uefi"` unless the features are compiled in,
/// and those freestanding x86-64 targets (kernels, unikernels, boot-time code) are the
/// `no_std` builds this detection is for. Two leaves and one `XGETBV` need no dependency.
#[cfg_attr(miri, allow(dead_code))]
pub(crate) fn cpu_widths() -> (bool, bool) {
    // Leaf 0: the highest leaf; leaf 7 holds AVX2 and AVX-512.
    if __cpuid(0).eax < 7 {
        return (false, false);
    }
    let (l1, l7) = (__cpuid(1), __cpuid_count(7, 0));
    let bit = |r: u32, b: u32| r >> b & 1 == 1;
    // Leaf 1 ECX: 12 FMA, 23 POPCNT, 27 OSXSAVE, 28 AVX.
    if !(bit(l1.ecx, 27) && bit(l1.ecx, 28)) {
        return (false, false);
    }
    // SAFETY: OSXSAVE is set (checked above), so the OS has enabled `XGETBV`, which
    // reads a register and touches no memory.
    let xcr0 = unsafe { xcr0() };
    // XCR0: SSE and AVX state (bits 1, 2); AVX-512 opmask, ZMM_Hi256, Hi16_ZMM (5, 6, 7).
    let (ymm, zmm) = (xcr0 & 0x6 == 0x6, xcr0 & 0xe6 == 0xe6);
    // Leaf 7 EBX: 5 AVX2, 16 AVX512F, 17 AVX512DQ, 30 AVX512BW, 31 AVX512VL.
    let avx2 = ymm && bit(l7.ebx, 5) && bit(l1.ecx, 12);
    let avx512 = avx2 && zmm && bit(l1.ecx, 23) && [16, 17, 30, 31].into_iter().all(|b| bit(l7.ebx, b));
    (avx2, avx512)
}

/// `XCR0`, the OS-enabled register state.
///
/// # Safety
/// The CPU reports `OSXSAVE`.
#[cfg_attr(miri, allow(dead_code))]
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    // SAFETY: XSAVE is enabled for this function; the caller promises the OS enabled it.
    unsafe { _xgetbv(0) }
}

#[cfg(all(test, not(miri)))]
mod tests {
    extern crate std;

    /// What CPUID and XGETBV say is what `std`'s detection says (also in the tests of
    /// builds without the `std` feature, whose test harness links `std`).
    #[test]
    fn cpu_widths_agree_with_std() {
        let avx2 = std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma");
        let avx512 = avx2
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("popcnt");
        assert_eq!(super::cpu_widths(), (avx2, avx512));
    }
}
