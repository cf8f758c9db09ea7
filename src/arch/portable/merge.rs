//! The `portable` width of the merge (thesis 4.5.4): the branch-free serial merge
//! (Alg. 16), which the SIMD widths also run on what is left after their last whole
//! register.

use crate::arch::OrdBits;

/// Branch-free serial merge (thesis Alg. 16): ties take `a` first, so it is stable.
///
/// The current heads `x`, `y` live in registers and the keys after them are loaded
/// before the comparison decides which head advances, so the loop-carried chain is a
/// compare and two selects, not a load.
///
/// Needs `out.len() == a.len() + b.len()` (checked by the callers; another length only
/// makes the output wrong).
#[inline]
pub(crate) fn merge<T: OrdBits>(a: &[T], b: &[T], out: &mut [T]) {
    let (na, nb) = (a.len(), b.len());
    let (mut i, mut j, mut k) = (0, 0, 0);
    if let (Some(&x0), Some(&y0)) = (a.first(), b.first()) {
        let (mut x, mut y) = (x0, y0);
        while i < na && j < nb {
            let Some(o) = out.get_mut(k) else { return };
            // The next keys of both lists, whichever advances (a stale value when a list
            // ends: the loop stops before it is used).
            let xn = a.get(i + 1).copied().unwrap_or(x);
            let yn = b.get(j + 1).copied().unwrap_or(y);
            let take_a = x.ord() <= y.ord();
            *o = if take_a { x } else { y };
            i += take_a as usize;
            j += !take_a as usize;
            k += 1;
            x = if take_a { xn } else { x };
            y = if take_a { y } else { yn };
        }
    }
    let rest = a.get(i..).unwrap_or(&[]).iter().chain(b.get(j..).unwrap_or(&[]));
    for (o, &x) in out.get_mut(k..).unwrap_or(&mut []).iter_mut().zip(rest) {
        *o = x;
    }
}

/// Stable serial merge of key–value pairs: keys and values of `a` before equal keys of `b`.
///
/// Needs every key slice as long as its value slice and the outputs as long as both
/// inputs together (checked by the callers).
#[inline]
pub(crate) fn merge_pairs<T: OrdBits, V: Copy>(
    ak: &[T],
    av: &[V],
    bk: &[T],
    bv: &[V],
    ok: &mut [T],
    ov: &mut [V],
) {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while let (Some(&x), Some(&y)) = (ak.get(i), bk.get(j)) {
        let (Some(o), Some(p), Some(&xv), Some(&yv)) = (ok.get_mut(k), ov.get_mut(k), av.get(i), bv.get(j))
        else {
            return;
        };
        let take_a = x.ord() <= y.ord();
        *o = if take_a { x } else { y };
        *p = if take_a { xv } else { yv };
        i += take_a as usize;
        j += !take_a as usize;
        k += 1;
    }
    let rest_k = ak.get(i..).unwrap_or(&[]).iter().chain(bk.get(j..).unwrap_or(&[]));
    let rest_v = av.get(i..).unwrap_or(&[]).iter().chain(bv.get(j..).unwrap_or(&[]));
    let outs = ok.get_mut(k..).unwrap_or(&mut []).iter_mut().zip(ov.get_mut(k..).unwrap_or(&mut []));
    for ((o, p), (&x, &v)) in outs.zip(rest_k.zip(rest_v)) {
        *o = x;
        *p = v;
    }
}
