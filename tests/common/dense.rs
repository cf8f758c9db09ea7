//! Dense blocks for the SpMM tests: `X` and `Y` in a padded slice of either layout.

use proptest::prelude::*;
use spblas::{DenseLayout, DenseMut, DenseRef, Scalar};

use super::vector;

/// A dense block in a slice with `pad` unused elements after each row (row-major) or
/// column (column-major), holding a sentinel SpMM must leave alone.
#[derive(Clone, Debug)]
pub struct Block<T> {
    pub rows: usize,
    pub cols: usize,
    pub ld: usize,
    pub layout: DenseLayout,
    pub data: Vec<T>,
}

pub const SENTINEL: f64 = 12345.0;

impl<T: Scalar> Block<T> {
    pub fn new(rows: usize, cols: usize, pad: usize, layout: DenseLayout, seed: u64) -> Self {
        let (outer, inner) = match layout {
            DenseLayout::RowMajor => (rows, cols),
            DenseLayout::ColMajor => (cols, rows),
        };
        let ld = inner + pad;
        let len = if outer == 0 || inner == 0 { 0 } else { (outer - 1) * ld + inner };
        let vals = vector::<T>(rows * cols, seed);
        let mut b = Block { rows, cols, ld, layout, data: vec![T::from_f64(SENTINEL); len] };
        for i in 0..rows {
            for j in 0..cols {
                let p = b.pos(i, j);
                b.data[p] = vals[i * cols + j];
            }
        }
        b
    }

    pub fn pos(&self, i: usize, j: usize) -> usize {
        match self.layout {
            DenseLayout::RowMajor => i * self.ld + j,
            DenseLayout::ColMajor => i + j * self.ld,
        }
    }

    pub fn at(&self, i: usize, j: usize) -> T {
        self.data[self.pos(i, j)]
    }

    pub fn view(&self) -> DenseRef<'_, T> {
        DenseRef::new(self.rows, self.cols, self.ld, self.layout, &self.data).unwrap()
    }

    pub fn view_mut(&mut self) -> DenseMut<'_, T> {
        DenseMut::new(self.rows, self.cols, self.ld, self.layout, &mut self.data).unwrap()
    }

    pub fn nan_inside(&mut self) {
        for i in 0..self.rows {
            for c in 0..self.cols {
                let p = self.pos(i, c);
                self.data[p] = T::from_f64(f64::NAN);
            }
        }
    }

    pub fn padding_untouched(&self) -> bool {
        let mut inside = vec![false; self.data.len()];
        for i in 0..self.rows {
            for j in 0..self.cols {
                inside[self.pos(i, j)] = true;
            }
        }
        self.data.iter().zip(&inside).all(|(v, &ins)| ins || v.to_f64() == SENTINEL)
    }
}

/// Row-major three times in four: the layout the fast kernels take.
pub fn layout() -> impl Strategy<Value = DenseLayout> {
    prop_oneof![3 => Just(DenseLayout::RowMajor), 1 => Just(DenseLayout::ColMajor)]
}
