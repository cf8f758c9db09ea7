//! Shared test support: proptest strategies for valid and corrupted matrices, and a dense
//! reference SpMV with a tolerance scaled by each row's sum of |a_ij * x_j|.
#![allow(dead_code)]

pub mod dense;

use proptest::prelude::*;
use spblas::Exec;
use spblas::{CsrOwned, Index, Scalar};

/// Raw CSR arrays (not yet validated).
#[derive(Clone, Debug)]
pub struct RawCsr<T, I> {
    pub nrows: usize,
    pub ncols: usize,
    pub row_ptr: Vec<I>,
    pub col_idx: Vec<I>,
    pub vals: Vec<T>,
}

impl<T: Scalar, I: Index> RawCsr<T, I> {
    pub fn owned(&self) -> CsrOwned<T, I> {
        CsrOwned::from_parts(
            self.nrows,
            self.ncols,
            self.row_ptr.clone(),
            self.col_idx.clone(),
            self.vals.clone(),
        )
        .expect("strategy produces valid CSR")
    }
}

/// The shapes the issue asks every kernel to be tested on.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// Random lengths 0..=max_len per row (many empty rows when max_len is small).
    Random,
    /// One row far longer than the others.
    OneHugeRow,
    /// Every row empty.
    AllEmpty,
    /// More rows than entries.
    TallSparse,
}

fn value<T: Scalar>() -> impl Strategy<Value = T> {
    // Small integers and halves: exact in f32, so cross-type comparisons stay tight, plus
    // some general values.
    prop_oneof![
        3 => (-8i32..=8).prop_map(|v| T::from_f64(v as f64 * 0.5)),
        1 => (-1.0e3f64..1.0e3).prop_map(T::from_f64),
        1 => Just(T::ZERO),
    ]
}

/// Arbitrary valid CSR: rectangular shapes including 0 rows/cols, empty rows, one huge
/// row, unsorted rows and duplicates (when `canonical` is false).
pub fn csr<T: Scalar, I: Index>(
    max_dim: usize,
    max_len: usize,
    canonical: bool,
) -> impl Strategy<Value = RawCsr<T, I>> {
    let shape = prop_oneof![
        6 => Just(Shape::Random),
        1 => Just(Shape::OneHugeRow),
        1 => Just(Shape::AllEmpty),
        1 => Just(Shape::TallSparse),
    ];
    (0..=max_dim, 0..=max_dim, shape, any::<u64>()).prop_flat_map(move |(nrows, ncols, shape, seed)| {
        let lens: Vec<usize> = (0..nrows)
            .map(|i| {
                let h = splitmix(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                if ncols == 0 {
                    return 0;
                }
                match shape {
                    Shape::Random => (h % (max_len as u64 + 1)) as usize,
                    Shape::OneHugeRow if i == nrows / 2 => 4 * max_len + (h % 7) as usize,
                    Shape::OneHugeRow => (h % 3) as usize,
                    Shape::AllEmpty => 0,
                    Shape::TallSparse => usize::from(h.is_multiple_of(8)),
                }
            })
            .collect();
        let nnz: usize = lens.iter().sum();
        let cols = proptest::collection::vec(0..ncols.max(1), nnz);
        let vals = proptest::collection::vec(value::<T>(), nnz);
        (Just((nrows, ncols, lens)), cols, vals).prop_map(move |((nrows, ncols, lens), mut cols, vals)| {
            let mut row_ptr = vec![I::ZERO];
            let mut start = 0;
            let mut col_idx = Vec::new();
            let mut v = Vec::new();
            for &len in &lens {
                let row = &mut cols[start..start + len];
                let vrow = &vals[start..start + len];
                if canonical {
                    let mut pairs: Vec<(usize, T)> = row.iter().copied().zip(vrow.iter().copied()).collect();
                    pairs.sort_by_key(|p| p.0);
                    pairs.dedup_by_key(|p| p.0);
                    for (c, x) in pairs {
                        col_idx.push(I::from_usize(c).unwrap());
                        v.push(x);
                    }
                } else {
                    col_idx.extend(row.iter().map(|&c| I::from_usize(c).unwrap()));
                    v.extend_from_slice(vrow);
                }
                start += len;
                row_ptr.push(I::from_usize(col_idx.len()).unwrap());
            }
            RawCsr { nrows, ncols, row_ptr, col_idx, vals: v }
        })
    })
}

pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A vector of `n` values for `x` or `y`.
pub fn vector<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    (0..n).map(|i| T::from_f64(((splitmix(seed ^ i as u64) % 17) as f64 - 8.0) * 0.25)).collect()
}

/// Dense reference `alpha * A * x + beta * y` in f64 over `(row, col, val)` entries, and
/// for each row the bound `sum |alpha a_ij x_j| + |beta y_i|` that scales the tolerance.
pub fn reference_spmv<T: Scalar>(
    nrows: usize,
    entries: impl Iterator<Item = (usize, usize, T)>,
    alpha: T,
    x: &[T],
    beta: T,
    y: &[T],
) -> (Vec<f64>, Vec<f64>) {
    let mut acc = vec![0.0f64; nrows];
    let mut mag = vec![0.0f64; nrows];
    let (a, b) = (alpha.to_f64(), beta.to_f64());
    for (i, j, v) in entries {
        let p = v.to_f64() * x[j].to_f64();
        acc[i] += p;
        mag[i] += (a * p).abs();
    }
    let want =
        (0..nrows).map(|i| if b == 0.0 { a * acc[i] } else { a * acc[i] + b * y[i].to_f64() }).collect();
    let bound = (0..nrows).map(|i| mag[i] + if b == 0.0 { 0.0 } else { (b * y[i].to_f64()).abs() }).collect();
    (want, bound)
}

/// Asserts `got[i]` is within `len_factor * eps(T) * bound[i]` of `want[i]` for every row.
pub fn assert_close<T: Scalar>(
    got: &[T],
    want: &[f64],
    bound: &[f64],
    len_factor: f64,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len());
    let eps = T::EPSILON.to_f64();
    for i in 0..got.len() {
        let tol = len_factor * eps * bound[i] + f64::MIN_POSITIVE;
        let err = (got[i].to_f64() - want[i]).abs();
        prop_assert!(err <= tol, "row {}: got {} want {} (err {}, tol {})", i, got[i], want[i], err, tol);
    }
    Ok(())
}

/// The `(alpha, beta)` pairs every SpMV test draws: the special cases `alpha = 0`,
/// `beta = 0` (y only written) and `beta = 1`, and general values.
pub fn scalars() -> impl Strategy<Value = (f64, f64)> {
    (prop_oneof![Just(1.0), Just(0.0), Just(-2.5)], prop_oneof![Just(0.0), Just(1.0), Just(0.5)])
}

/// Checks `m` (any format holding the same matrix as `a`) against the dense reference on
/// every available `Isa`; with `beta == 0`, `y` starts as NaN to prove it is not read.
pub fn check_spmv_against<T: Scalar, I: Index, M: spblas::SpMv<T> + ?Sized>(
    m: &M,
    a: &spblas::Csr<'_, T, I>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let x = vector::<T>(a.ncols(), seed);
    let y0 = vector::<T>(a.nrows(), seed.wrapping_add(1));
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), alpha, &x, beta, &y0);
    let factor = (a.max_row_len() + 3) as f64;
    for isa in spblas::Isa::available() {
        let mut y = y0.clone();
        if beta == T::ZERO {
            y.fill(T::from_f64(f64::NAN));
        }
        m.spmv(Exec::from(isa), alpha, &x, beta, &mut y).unwrap();
        assert_close(&y, &want, &bound, factor)?;
    }
    Ok(())
}

/// The `VmFlags` of the mapping holding `addr` in this process (`/proc/self/smaps`), where
/// the kernel exposes transparent huge pages and the test runs natively on x86-64 Linux
/// (qemu's emulated `/proc` is not the kernel's); `None` elsewhere. `hg` among the flags
/// means `madvise(MADV_HUGEPAGE)` covers the mapping.
pub fn vm_flags_of(addr: usize) -> Option<String> {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64"))
        || !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists()
    {
        return None;
    }
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut inside = false;
    for line in smaps.lines() {
        let head = line.split_whitespace().next().unwrap_or("");
        if let Some((lo, hi)) = head.split_once('-')
            && let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
        {
            inside = (lo..hi).contains(&addr);
        } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
            return Some(flags.trim().to_string());
        }
    }
    None
}

/// A property test's case count: `n` on x86-64, a quarter of it (at least 4) elsewhere —
/// the AArch64 and WebAssembly runs are emulated (qemu, wasmtime), where every case costs
/// several times more, and they check the same generic code on another width.
pub const fn cases(n: u32) -> u32 {
    if cfg!(target_arch = "x86_64") {
        n
    } else if n / 4 > 4 {
        n / 4
    } else if n < 4 {
        n
    } else {
        4
    }
}
