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

pub(crate) mod avx2;
pub(crate) mod avx512;
