//! Sparse triangular solve (the Sparse BLAS `ussv`; not in the thesis, which stops at
//! SpGEMM: its author's follow-up, Liu, Li, Hou and Vinter, "A synchronization-free
//! algorithm for parallel sparse triangular solves", Euro-Par 2016).
//!
//! `op(A) x = alpha * b` for a square CSR matrix `A` holding one triangle
//! ([`Triangle`]) with a stored or unit diagonal ([`Diagonal`]), for one right-hand side
//! ([`trsv`]) or `nrhs` of them stored row-major ([`trsm`]). The solution overwrites the
//! right-hand side in the caller's slice, as BLAS `trsv` does: `x` holds `b` on entry and
//! `x = alpha * A⁻¹ b` on return.
//!
//! What the solve accepts, checked before anything is written (errors name the row):
//! - `A` square ([`DimError::NotSquare`]);
//! - every stored entry in the declared triangle, the diagonal included
//!   ([`DimError::NotTriangular`] names the first entry outside it, row and column);
//! - for [`Diagonal::NonUnit`], a stored diagonal entry in every row
//!   ([`DimError::MissingDiagonal`]) that is not zero ([`DimError::ZeroDiagonal`]);
//!   for [`Diagonal::Unit`], stored diagonal entries are ignored (as MKL's `mkl_sparse_?_trsv`
//!   does), so a factor that keeps its unit diagonal, or an `L + U` store, needs no copy.
//!
//! Rows may be unsorted and hold duplicates ([`RowOrder`](crate::RowOrder)): the diagonal is
//! found by its column, not by its position, and duplicates add up (two diagonal entries
//! are one diagonal, their sum).
//!
//! These checks cost a pass over the entries. [`TriangularSolve::analyse`] makes them once
//! for a matrix solved many times (a preconditioner), as MKL's `mkl_sparse_optimize` and
//! cuSPARSE's `csrsv2_analysis` do; [`TriangularSolve::analyse_levels`] also sorts the rows
//! into level sets (a row's level: one more than the highest level it depends on) in a
//! caller buffer, for [`TrsvMethod::LevelSet`].
//!
//! Every method computes each row the same way, `(alpha * b_i - sum a_ij x_j) / a_ii` with
//! the products subtracted in storage order, so every method, thread count and [`Isa`](crate::Isa)
//! gives the same bits. The substitution is a chain of dependent rows whose work is a short
//! dot product waiting on the previous rows' results, so one plain loop serves every `Isa`
//! (the `Isa` is still checked to be available, as for every kernel).

pub use crate::formats::Triangle;
use crate::formats::symmetric::check_in_triangle;
use crate::formats::{Csr, RowOrder};
use crate::{DimError, Exec, Index, Scalar};

/// Whether the diagonal of `A` is stored or taken as all ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Diagonal {
    /// The diagonal is all ones and not read: stored diagonal entries are ignored.
    Unit,
    /// Each row's stored diagonal entries (added up) are its divisor; every row needs one
    /// and it must not be zero.
    NonUnit,
}

/// How [`TriangularSolve::solve_with`] runs the rows. On the 2-vCPU VM of
/// `benches/records/trsv-*.md` both threaded methods ran slower on two threads than the
/// substitution on one (each dependency a cross-core transfer); measure before threading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TrsvMethod {
    /// Forward (or back) substitution on the calling thread: one row after the other.
    Substitution,
    /// The rows of one level in parallel, a join between levels (the level-set method of
    /// Anderson and Saad); needs the levels of [`TriangularSolve::analyse_levels`]. On one
    /// thread, the rows level by level.
    LevelSet,
    /// Synchronization-free (Liu, Li, Hou and Vinter, Euro-Par 2016): workers take blocks of
    /// consecutive rows in solve order from one atomic counter and each row busy-waits
    /// until the rows it reads are solved, with no barrier. On CSR a row knows the rows it
    /// reads (its columns), so each waits on those rows' flags instead of the paper's
    /// in-degree counters (which are for CSC). Rows are handed out in level order where
    /// the analysis made levels (neighbours in the natural order of a stencil read each
    /// other), else in the natural order. On one thread, the substitution.
    SyncFree,
}

impl TrsvMethod {
    /// Short lower-case name, as in benchmark ids: `"substitution"`, `"level-set"`,
    /// `"sync-free"`.
    pub fn name(self) -> &'static str {
        match self {
            TrsvMethod::Substitution => "substitution",
            TrsvMethod::LevelSet => "level-set",
            TrsvMethod::SyncFree => "sync-free",
        }
    }
}

/// Right-hand sides a row of [`trsm`] works on at once: the row is read once per block
/// while the block's partial sums stay in registers (the row stays in L1 between blocks).
pub(crate) const RHS_BLOCK: usize = 8;

/// Fewest rows plus entries (times right-hand sides) of a level the threaded
/// [`TrsvMethod::LevelSet`] gives each task: a smaller level runs on the calling thread. A
/// fork and join cost about 30 µs on the 2-vCPU VM (`benches/records/overhead-*.md`), the
/// work of some 8K rows plus entries.
pub(crate) const LEVEL_WORK: usize = 8192;

/// Checks what every triangular solve accepts (module docs): square, every entry in
/// `triangle`, and for [`Diagonal::NonUnit`] a nonzero diagonal in every row. One pass
/// over the entries; the first violation in row order.
///
/// # Errors
/// [`DimError::NotSquare`], [`DimError::NotTriangular`], [`DimError::MissingDiagonal`],
/// [`DimError::ZeroDiagonal`].
pub fn check_triangular<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    triangle: Triangle,
    diagonal: Diagonal,
) -> Result<(), DimError> {
    check_in_triangle(a, triangle, diagonal == Diagonal::NonUnit)
}

/// `x = alpha * A⁻¹ x` for a triangular CSR `A` and one right-hand side (`ussv`): `x`
/// holds `b` on entry and the solution on return. [`trsm`] with `nrhs = 1`; see the
/// module docs for what `A` must be.
///
/// With `alpha == 0`, `x` is set to zero and neither `A` nor `x` is read (BLAS
/// convention; zero solves `A x = 0` for any `A`). With more than one thread (feature
/// `parallel`), the synchronization-free method ([`TrsvMethod::SyncFree`]): the same bits.
///
/// ```
/// use spblas::level2::{Diagonal, Triangle, trsv};
/// use spblas::{Csr, Exec};
/// // L = [[2, 0], [1, 4]] (row 1 unsorted), b = [2, 9]: x = [1, 2].
/// let a = Csr::new(2, 2, &[0u32, 1, 3], &[0u32, 1, 0], &[2.0f64, 4.0, 1.0])?;
/// let mut x = [2.0, 9.0];
/// trsv(Exec::new(), &a, Triangle::Lower, Diagonal::NonUnit, 1.0, &mut x)?;
/// assert_eq!(x, [1.0, 2.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`DimError::IsaUnavailable`]; [`DimError::NotSquare`]; [`DimError::Length`] (`"x"`)
/// unless `x.len() == nrows`; then, unless `alpha == 0`, the checks of
/// [`check_triangular`]. `x` is untouched on error.
pub fn trsv<T: Scalar, I: Index>(
    exec: Exec,
    a: &Csr<'_, T, I>,
    triangle: Triangle,
    diagonal: Diagonal,
    alpha: T,
    x: &mut [T],
) -> Result<(), DimError> {
    trsm(exec, a, triangle, diagonal, alpha, x, 1)
}

/// `X = alpha * A⁻¹ X` for `nrhs` right-hand sides stored row-major in `x` (`nrows × nrhs`,
/// row `i` of `X` at `x[i * nrhs..(i + 1) * nrhs]`): one pass over `A` for all of them
/// (`ussm`). Column `c` of the result has the bits [`trsv`] gives for column `c` alone.
/// `nrhs == 0` does nothing.
///
/// # Errors
/// As [`trsv`], with [`DimError::Length`] (`"x"`) unless `x.len() == nrows * nrhs`.
pub fn trsm<T: Scalar, I: Index>(
    exec: Exec,
    a: &Csr<'_, T, I>,
    triangle: Triangle,
    diagonal: Diagonal,
    alpha: T,
    x: &mut [T],
    nrhs: usize,
) -> Result<(), DimError> {
    check_operands(exec, a, x, nrhs)?;
    if alpha != T::ZERO {
        check_triangular(a, triangle, diagonal)?;
    }
    let s = TriangularSolve { a: *a, triangle, diagonal, levels: None };
    s.run(exec, TrsvMethod::SyncFree, alpha, x, nrhs)
}

/// The checks of every solve that do not read the entries: the `Isa`, a square `A`, and
/// `x.len() == nrows * nrhs`.
fn check_operands<T: Scalar, I: Index>(
    exec: Exec,
    a: &Csr<'_, T, I>,
    x: &[T],
    nrhs: usize,
) -> Result<(), DimError> {
    crate::primitives::check_isa(exec.resolved_isa())?;
    let n = a.nrows();
    if a.ncols() != n {
        return Err(DimError::NotSquare { nrows: n, ncols: a.ncols() });
    }
    let expected = n.checked_mul(nrhs).ok_or(DimError::Overflow {
        what: "nrows * nrhs",
        value: usize::MAX,
        max: usize::MAX,
    })?;
    if x.len() != expected {
        return Err(DimError::Length { operand: "x", expected, got: x.len() });
    }
    Ok(())
}

/// The rows of a triangular matrix sorted by level (`rows[ptr[l]..ptr[l + 1]]` is level
/// `l`), in a caller buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Levels<'a> {
    pub ptr: &'a [usize],
    pub rows: &'a [usize],
}

/// A triangular matrix checked once and solved many times (the analysis phase of MKL's
/// `mkl_sparse_optimize` and cuSPARSE's `csrsv2_analysis`): the solves skip the O(nnz)
/// checks of [`trsv`]. Borrows the matrix and, when made by
/// [`TriangularSolve::analyse_levels`], the caller's buffer holding the level sets.
///
/// ```
/// use spblas::level2::{Diagonal, Triangle, TriangularSolve, TrsvMethod};
/// use spblas::{Csr, Exec};
/// // U = [[1, 1, 0], [0, 1, 1], [0, 0, 1]] with a unit diagonal (not stored).
/// let a = Csr::new(3, 3, &[0u32, 1, 2, 2], &[1u32, 2], &[1.0f64, 1.0])?;
/// let mut levels = [0usize; 10]; // TriangularSolve::levels_len(3)
/// let s = TriangularSolve::analyse_levels(Exec::new(), &a, Triangle::Upper, Diagonal::Unit, &mut levels)?;
/// assert_eq!(s.level_count(), Some(3)); // a chain: one row per level
/// let mut x = [3.0, 2.0, 1.0];
/// s.solve_with(Exec::new(), TrsvMethod::LevelSet, 1.0, &mut x, 1)?;
/// assert_eq!(x, [2.0, 1.0, 1.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TriangularSolve<'a, T, I> {
    a: Csr<'a, T, I>,
    triangle: Triangle,
    diagonal: Diagonal,
    levels: Option<Levels<'a>>,
}

impl<'a, T: Scalar, I: Index> TriangularSolve<'a, T, I> {
    /// Checks `a` for `triangle` and `diagonal` (module docs) and keeps it for solves.
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`] for `exec`'s `Isa`, then those of
    /// [`check_triangular`].
    pub fn analyse(
        exec: Exec,
        a: &Csr<'a, T, I>,
        triangle: Triangle,
        diagonal: Diagonal,
    ) -> Result<Self, DimError> {
        crate::primitives::check_isa(exec.resolved_isa())?;
        check_triangular(a, triangle, diagonal)?;
        Ok(TriangularSolve { a: *a, triangle, diagonal, levels: None })
    }

    /// The length of the buffer [`TriangularSolve::analyse_levels`] needs for `n` rows:
    /// `3n + 1` (each row's level, the level pointers, the rows sorted by level).
    pub fn levels_len(n: usize) -> usize {
        n.saturating_mul(3).saturating_add(1)
    }

    /// [`TriangularSolve::analyse`], and the level sets for [`TrsvMethod::LevelSet`] in
    /// `workspace` (at least [`TriangularSolve::levels_len`]`(nrows)` long; only that
    /// prefix is used): one more pass over the entries and a counting sort of the rows.
    ///
    /// # Errors
    /// As [`TriangularSolve::analyse`], and [`DimError::BufferTooSmall`] (`"workspace"`)
    /// before anything is written.
    pub fn analyse_levels(
        exec: Exec,
        a: &Csr<'a, T, I>,
        triangle: Triangle,
        diagonal: Diagonal,
        workspace: &'a mut [usize],
    ) -> Result<Self, DimError> {
        let mut s = TriangularSolve::analyse(exec, a, triangle, diagonal)?;
        let n = a.nrows();
        let needed = TriangularSolve::<T, I>::levels_len(n);
        if workspace.len() < needed {
            return Err(DimError::BufferTooSmall { buffer: "workspace", needed, got: workspace.len() });
        }
        let (level, rest) = workspace[..needed].split_at_mut(n);
        let (ptr, rows) = rest.split_at_mut(n + 1);
        let (row_ptr, col_idx) = (a.row_ptr(), a.col_idx());
        // A row's level: one more than the highest level among the rows it reads, which
        // come before it in solve order.
        let mut count = 0usize;
        for t in 0..n {
            let i = solve_order(triangle, n, t);
            let r = row_ptr[i].to_usize()..row_ptr[i + 1].to_usize();
            let mut l = 0usize;
            for c in &col_idx[r] {
                let j = c.to_usize();
                if j != i {
                    l = l.max(level[j] + 1);
                }
            }
            level[i] = l;
            count = count.max(l + 1);
        }
        // Counting sort by level, rows in solve order within a level.
        let ptr = &mut ptr[..count + 1];
        ptr.fill(0);
        for &l in level.iter() {
            ptr[l + 1] += 1;
        }
        for l in 1..=count {
            ptr[l] += ptr[l - 1];
        }
        for t in 0..n {
            let i = solve_order(triangle, n, t);
            rows[ptr[level[i]]] = i;
            ptr[level[i]] += 1;
        }
        // Each `ptr[l]` now ends level `l`: shift them to starts.
        for l in (1..=count).rev() {
            ptr[l] = ptr[l - 1];
        }
        ptr[0] = 0;
        s.levels = Some(Levels { ptr, rows });
        Ok(s)
    }

    /// The number of level sets, where [`TriangularSolve::analyse_levels`] made them: the
    /// length of the longest chain of dependent rows, the number of joins
    /// [`TrsvMethod::LevelSet`] makes.
    pub fn level_count(&self) -> Option<usize> {
        self.levels.map(|l| l.ptr.len() - 1)
    }

    /// The matrix being solved.
    pub fn matrix(&self) -> Csr<'a, T, I> {
        self.a
    }

    /// `X = alpha * A⁻¹ X` for `nrhs` right-hand sides stored row-major in `x` (as
    /// [`trsm`], without its checks of `A`): on one thread the substitution, on more the
    /// synchronization-free method.
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`]; [`DimError::Length`] (`"x"`) unless
    /// `x.len() == nrows * nrhs`. `x` is untouched on error.
    pub fn solve(&self, exec: Exec, alpha: T, x: &mut [T], nrhs: usize) -> Result<(), DimError> {
        self.solve_with(exec, TrsvMethod::SyncFree, alpha, x, nrhs)
    }

    /// [`TriangularSolve::solve`] by `method` (on `exec`'s threads, feature `parallel`;
    /// [`TrsvMethod::Substitution`] always on the calling thread). Every method gives the
    /// same bits.
    ///
    /// # Errors
    /// As [`TriangularSolve::solve`], and [`DimError::Parameter`] (`"levels"`) for
    /// [`TrsvMethod::LevelSet`] where the analysis made no levels.
    pub fn solve_with(
        &self,
        exec: Exec,
        method: TrsvMethod,
        alpha: T,
        x: &mut [T],
        nrhs: usize,
    ) -> Result<(), DimError> {
        check_operands(exec, &self.a, x, nrhs)?;
        if method == TrsvMethod::LevelSet && self.levels.is_none() {
            return Err(DimError::Parameter { name: "levels", value: 0 });
        }
        self.run(exec, method, alpha, x, nrhs)
    }

    /// The solve after the checks.
    fn run(
        &self,
        exec: Exec,
        method: TrsvMethod,
        alpha: T,
        x: &mut [T],
        nrhs: usize,
    ) -> Result<(), DimError> {
        if alpha == T::ZERO {
            x.fill(T::ZERO);
            return Ok(());
        }
        if nrhs == 0 || self.a.nrows() == 0 {
            return Ok(());
        }
        let unit = self.diagonal == Diagonal::Unit;
        #[cfg(feature = "parallel")]
        if exec.thread_limit() != 1 {
            let p = crate::parallel::Solve { a: &self.a, triangle: self.triangle, unit, alpha, nrhs };
            let done = match (method, self.levels) {
                (TrsvMethod::LevelSet, Some(l)) => {
                    crate::parallel::trsv_level_set(p, l, x, exec.thread_limit())
                }
                (TrsvMethod::SyncFree, l) => {
                    crate::parallel::trsv_sync_free(p, l.map(|l| l.rows), x, exec.thread_limit())
                }
                _ => false,
            };
            if done {
                return Ok(());
            }
        }
        #[cfg(not(feature = "parallel"))]
        let _ = exec;
        let (a, k) = (&self.a, nrhs);
        match (method, self.levels) {
            (TrsvMethod::LevelSet, Some(l)) => {
                for &i in l.rows {
                    solve_row_in_place(a, i, unit, alpha, x, k);
                }
            }
            _ if k == 1 && a.row_order() == RowOrder::Canonical => {
                substitute_canonical(a, self.triangle, unit, alpha, x)
            }
            _ => {
                for t in 0..a.nrows() {
                    solve_row_in_place(a, solve_order(self.triangle, a.nrows(), t), unit, alpha, x, k);
                }
            }
        }
        Ok(())
    }
}

/// Serial substitution with one right-hand side on strictly increasing rows of a checked
/// triangular matrix: the stored diagonal is the row's last (lower) or first (upper) entry,
/// so the loop over the others has no test for it, and the division waits only on the
/// products. The same operations in the same order as [`row_one`], so the same bits.
fn substitute_canonical<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    triangle: Triangle,
    unit: bool,
    alpha: T,
    x: &mut [T],
) {
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    let n = a.nrows();
    if triangle == Triangle::Lower && !unit {
        // The common case on its own: every row ends with its diagonal (checked).
        for (i, w) in row_ptr.windows(2).enumerate() {
            let (s, e) = (w[0].to_usize(), w[1].to_usize());
            if e <= s {
                continue;
            }
            let d = e - 1;
            let mut acc = alpha * x[i];
            for (c, &v) in col_idx[s..d].iter().zip(&vals[s..d]) {
                acc -= v * x[c.to_usize()];
            }
            x[i] = acc * (T::ONE / (T::ZERO + vals[d]));
        }
        return;
    }
    for t in 0..n {
        let i = solve_order(triangle, n, t);
        let (s, e) = (row_ptr[i].to_usize(), row_ptr[i + 1].to_usize());
        // The diagonal's position, if stored (the check put it at the row's edge).
        let diag = match triangle {
            Triangle::Lower => (e > s && col_idx[e - 1].to_usize() == i).then(|| e - 1),
            Triangle::Upper => (e > s && col_idx[s].to_usize() == i).then_some(s),
        };
        let off = match (triangle, diag) {
            (Triangle::Lower, Some(d)) => s..d,
            (Triangle::Upper, Some(d)) => d + 1..e,
            (_, None) => s..e,
        };
        let mut acc = alpha * x[i];
        for (c, &v) in col_idx[off.clone()].iter().zip(&vals[off]) {
            acc -= v * x[c.to_usize()];
        }
        x[i] = match diag {
            Some(d) if !unit => acc * (T::ONE / (T::ZERO + vals[d])),
            _ => acc,
        };
    }
}

/// The row solved `t`-th: `t` top-down for a lower triangle, bottom-up for an upper one.
#[inline(always)]
pub(crate) fn solve_order(triangle: Triangle, n: usize, t: usize) -> usize {
    match triangle {
        Triangle::Lower => t,
        Triangle::Upper => n - 1 - t,
    }
}

/// Row `i` of the solve with one right-hand side: `(alpha * b_i - sum a_ij x_j) * (1 /
/// a_ii)` (the factor left out when `unit`), the products subtracted in storage order,
/// the diagonal entries (by column) added up. The reciprocal depends only on `A`, so it
/// is computed while the sums wait for the previous rows, and the chain from one row to
/// the next is a multiply instead of a division (`benches/records/peers-ops-*.md`). `x(j)` reads the solved `x_j`. Every method's
/// row, so every method gives the same bits.
#[inline(always)]
pub(crate) fn row_one<T: Scalar, I: Index>(
    cols: &[I],
    vals: &[T],
    i: usize,
    unit: bool,
    mut s: T,
    x: impl Fn(usize) -> T,
) -> T {
    let mut d = T::ZERO;
    for (c, &v) in cols.iter().zip(vals) {
        let j = c.to_usize();
        if j == i {
            d += v;
        } else {
            s -= v * x(j);
        }
    }
    if unit { s } else { s * (T::ONE / d) }
}

/// [`row_one`] for `acc.len()` right-hand sides at once (at most [`RHS_BLOCK`]): `acc`
/// holds `alpha * b_i` on entry and the solved row on return; `x(j, c)` reads `x_j` of
/// right-hand side `c` of the block. The same operations in the same order per
/// right-hand side as [`row_one`].
#[inline(always)]
pub(crate) fn row_block<T: Scalar, I: Index>(
    cols: &[I],
    vals: &[T],
    i: usize,
    unit: bool,
    acc: &mut [T],
    x: impl Fn(usize, usize) -> T,
) {
    let mut d = T::ZERO;
    for (c, &v) in cols.iter().zip(vals) {
        let j = c.to_usize();
        if j == i {
            d += v;
        } else {
            for (r, s) in acc.iter_mut().enumerate() {
                *s -= v * x(j, r);
            }
        }
    }
    if !unit {
        let r = T::ONE / d;
        acc.iter_mut().for_each(|s| *s *= r);
    }
}

/// Solves row `i` of `X` (row-major, `k` right-hand sides) in place.
#[inline(always)]
fn solve_row_in_place<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    i: usize,
    unit: bool,
    alpha: T,
    x: &mut [T],
    k: usize,
) {
    let r = a.row_ptr()[i].to_usize()..a.row_ptr()[i + 1].to_usize();
    let (cols, vals) = (&a.col_idx()[r.clone()], &a.vals()[r]);
    if k == 1 {
        x[i] = row_one(cols, vals, i, unit, alpha * x[i], |j| x[j]);
        return;
    }
    for r0 in (0..k).step_by(RHS_BLOCK) {
        let w = RHS_BLOCK.min(k - r0);
        let mut acc = [T::ZERO; RHS_BLOCK];
        let acc = &mut acc[..w];
        for (c, s) in acc.iter_mut().enumerate() {
            *s = alpha * x[i * k + r0 + c];
        }
        row_block(cols, vals, i, unit, acc, |j, c| x[j * k + r0 + c]);
        x[i * k + r0..i * k + r0 + w].copy_from_slice(acc);
    }
}
