//! The bodies of the `spblas` fuzz targets, one module per target, so that the
//! libFuzzer binaries in `fuzz_targets/` are one line each and the same code runs as a
//! plain `cargo test` over the committed seeds (`tests/seeds.rs`), on stable, without
//! libFuzzer.
//!
//! Every target decodes its input with [`arbitrary`] and checks one promise of the
//! crate (see `README.md`). Values are small integers stored as floats, so every sum the
//! kernels form is exact whatever the order of additions: results are compared with
//! `==`, bit for bit up to the sign of zero, against a plain reference.

pub mod canonical;
pub mod csr5_roundtrip;
pub mod formats;
pub mod isa_equivalence;
pub mod level1;
pub mod mtx;
pub mod mtx_stream;
pub mod spgemm;
pub mod spmm;
pub mod threads;
pub mod trsv;

use arbitrary::{Arbitrary, Unstructured};
use spblas::Exec;
use spblas::{Isa, SpMv};

/// Largest dimension for which the targets allocate dense references and run kernels.
pub const MAX_DIM: usize = 48;

/// A dimension: mostly small (`0..MAX_DIM`), sometimes right at the index type's maxima
/// so the size checks of the constructors meet `u32::MAX` and its neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim(pub usize);

impl<'a> Arbitrary<'a> for Dim {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let b = u8::arbitrary(u)?;
        Ok(Dim(match b {
            0..=0xEF => usize::from(b) % MAX_DIM,
            // u32::MAX - 7 ..= u32::MAX
            0xF0..=0xF7 => u32::MAX as usize - usize::from(b - 0xF0),
            0xF8..=0xFB => (u32::MAX >> 1) as usize + usize::from(b - 0xF8) - 1,
            0xFC => usize::MAX,
            0xFD => usize::MAX - 1,
            _ => usize::from(u16::arbitrary(u)?),
        }))
    }
}

/// A `u32` index: mostly small, sometimes a padding marker or a huge value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Idx(pub u32);

impl<'a> Arbitrary<'a> for Idx {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let b = u8::arbitrary(u)?;
        Ok(Idx(match b {
            0..=0xF7 => u32::from(b) % 64,
            0xF8 => u32::MAX,
            0xF9 => u32::MAX - 1,
            0xFA => u32::MAX >> 1,
            0xFB => (u32::MAX >> 1) + 1,
            _ => u32::arbitrary(u)?,
        }))
    }
}

/// A value: a small integer as `f64` (so sums are exact).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Val(pub f64);

impl<'a> Arbitrary<'a> for Val {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Val(f64::from(i8::arbitrary(u)? % 16)))
    }
}

/// The raw `u32`s of a list of [`Idx`].
pub fn idx(v: &[Idx]) -> Vec<u32> {
    v.iter().map(|i| i.0).collect()
}

/// The raw `f64`s of a list of [`Val`].
pub fn vals(v: &[Val]) -> Vec<f64> {
    v.iter().map(|x| x.0).collect()
}

/// A dense row-major reference matrix, built entry by entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    pub nrows: usize,
    pub ncols: usize,
    pub a: Vec<f64>,
}

impl Dense {
    pub fn zeros(nrows: usize, ncols: usize) -> Dense {
        Dense { nrows, ncols, a: vec![0.0; nrows * ncols] }
    }

    /// `A[i, j] += v`; the caller has checked the bounds (a reference is not a validator).
    pub fn add(&mut self, i: usize, j: usize, v: f64) {
        assert!(i < self.nrows && j < self.ncols, "reference entry ({i}, {j}) out of bounds");
        self.a[i * self.ncols + j] += v;
    }

    /// A dense matrix from `(row, col, value)` triplets.
    pub fn from_iter(nrows: usize, ncols: usize, it: impl IntoIterator<Item = (usize, usize, f64)>) -> Dense {
        let mut d = Dense::zeros(nrows, ncols);
        for (i, j, v) in it {
            d.add(i, j, v);
        }
        d
    }

    /// `alpha * A * x + beta * y`, row by row, as BLAS defines it (`y` not read when
    /// `beta == 0`).
    pub fn spmv(&self, alpha: f64, x: &[f64], beta: f64, y: &[f64]) -> Vec<f64> {
        (0..self.nrows)
            .map(|i| {
                let dot: f64 = (0..self.ncols).map(|j| self.a[i * self.ncols + j] * x[j]).sum();
                if beta == 0.0 { alpha * dot } else { alpha * dot + beta * y[i] }
            })
            .collect()
    }
}

/// `alpha`, `beta` and the seeds of `x` and `y` for one SpMV check.
#[derive(Clone, Copy, Debug, Arbitrary)]
pub struct SpmvArgs {
    pub alpha: i8,
    pub beta: i8,
    pub seed: u8,
}

impl SpmvArgs {
    pub fn alpha(&self) -> f64 {
        f64::from(self.alpha % 4)
    }
    pub fn beta(&self) -> f64 {
        f64::from(self.beta % 3)
    }
    /// `x` of length `n`, small integers.
    pub fn x(&self, n: usize) -> Vec<f64> {
        (0..n).map(|j| ((j * 7 + usize::from(self.seed)) % 9) as f64 - 4.0).collect()
    }
    /// `y` of length `n`: NaN when `beta == 0` (which must not leak).
    pub fn y(&self, n: usize) -> Vec<f64> {
        if self.beta() == 0.0 {
            vec![f64::NAN; n]
        } else {
            (0..n).map(|i| ((i * 5 + usize::from(self.seed)) % 7) as f64 - 3.0).collect()
        }
    }
}

/// Exact equality of two result vectors (`-0.0 == 0.0`; NaN never equal).
pub fn same(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p == q)
}

/// Runs `a.spmv_isa` on every available `Isa` and compares with the dense reference;
/// also checks that wrong lengths are errors that leave `y` untouched.
pub fn check_spmv(name: &str, a: &dyn SpMv<f64>, dense: &Dense, args: SpmvArgs) {
    let (alpha, beta) = (args.alpha(), args.beta());
    let x = args.x(dense.ncols);
    let y0 = args.y(dense.nrows);
    let want = dense.spmv(alpha, &x, beta, &y0);
    for isa in Isa::available() {
        let mut y = y0.clone();
        a.spmv(Exec::from(isa), alpha, &x, beta, &mut y)
            .unwrap_or_else(|e| panic!("{name} spmv on {isa}: {e}"));
        assert!(same(&y, &want), "{name} spmv on {isa}: got {y:?}, want {want:?}");
        // Wrong lengths: an error, `y` untouched.
        let mut y = y0.clone();
        let short_x = &x[..x.len().saturating_sub(1)];
        if short_x.len() != x.len() {
            assert!(
                a.spmv(Exec::from(isa), alpha, short_x, beta, &mut y).is_err(),
                "{name}: short x accepted"
            );
        }
        let mut longer = y.clone();
        longer.push(1.0);
        assert!(a.spmv(Exec::from(isa), alpha, &x, beta, &mut longer).is_err(), "{name}: long y accepted");
        assert!(same_bits(&longer[..y0.len()], &y0), "{name}: y written on error");
    }
}

/// Bitwise equality (NaN payloads included): "untouched" checks.
pub fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits())
}

/// Whether a shape is small enough for dense references.
pub fn small(nrows: usize, ncols: usize) -> bool {
    nrows <= MAX_DIM && ncols <= MAX_DIM
}
