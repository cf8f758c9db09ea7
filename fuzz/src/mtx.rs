//! Target `mtx`: the Matrix Market reader on arbitrary bytes returns a matrix or an
//! error, never panics; a matrix it returns is valid, and writing it and reading it back
//! gives the same matrix (values bit for bit, NaN payloads aside). Under a line limit of
//! 40 bytes (`MtxLimits::with_max_line_len`, which the default's 1 MiB never reaches in
//! a fuzz input) the reader refuses or returns the same matrix as without it.
//!
//! The input is the file itself (so seeds are readable `.mtx` files). The reader runs
//! with [`MtxLimits`] of 2^16 rows and entries: the default admits 2^28 rows, whose
//! row pointer alone is a 1–2 GiB allocation — a documented limit, not a bug, but more
//! than libFuzzer's 2 GiB RSS budget.

use spblas::io::mtx::{MtxLimits, MtxSymmetry, read_mtx, read_mtx_header, read_mtx_with, write_mtx};
use spblas::{CsrOwned, Index, Scalar};

/// Runs the target; returns 1 when the input parsed as a matrix.
pub fn run(data: &[u8]) -> usize {
    let _ = read_mtx_header(data);
    let limits = MtxLimits::new(1 << 16, 1 << 16);
    // They may legitimately differ (a column count above u32::MAX or u16::MAX, say); each
    // must not panic.
    let a = check::<f64, u32>(data, &limits);
    let b = check::<f32, u64>(data, &limits);
    let c = check::<f64, u16>(data, &limits);
    if let Ok((_, short)) = read_mtx_with::<f64, u32, _>(data, &limits.with_max_line_len(40)) {
        let (_, full) = read_mtx_with::<f64, u32, _>(data, &limits).expect("read under a shorter line limit");
        let (s, f) = (short.into_parts(), full.into_parts());
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert!((s.0, s.1, &s.2, &s.3) == (f.0, f.1, &f.2, &f.3), "a line limit changed the pattern");
        assert!(bits(&s.4) == bits(&f.4), "a line limit changed the values");
    }
    usize::from(a) + usize::from(b) + usize::from(c)
}

fn check<T: Scalar, I: Index>(data: &[u8], limits: &MtxLimits) -> bool {
    let Ok((header, m)) = read_mtx_with::<T, I, _>(data, limits) else { return false };
    assert_eq!((header.nrows, header.ncols), (m.nrows(), m.ncols()));
    // Valid by construction: the view re-validates.
    let view = m.view();
    let (nrows, ncols, rp, ci, v) = m.clone().into_parts();
    let again = CsrOwned::from_parts(nrows, ncols, rp, ci, v).expect("read_mtx returned an invalid matrix");
    assert_eq!(again.nnz(), view.nnz());
    // Write, read back: the same matrix.
    let mut out = Vec::new();
    write_mtx(&mut out, &view, MtxSymmetry::General).expect("write_mtx into a Vec");
    let back: CsrOwned<T, I> = read_mtx(out.as_slice()).expect("read_mtx of write_mtx output");
    let (n1, c1, r1, i1, v1) = m.into_parts();
    let (n2, c2, r2, i2, v2) = back.into_parts();
    assert_eq!((n1, c1), (n2, c2), "shape changed in the round trip");
    assert!(r1 == r2 && i1 == i2, "structure changed in the round trip");
    let same = v1.iter().zip(&v2).all(|(p, q)| p == q || (p.to_f64().is_nan() && q.to_f64().is_nan()));
    assert!(same, "values changed in the round trip");
    true
}
