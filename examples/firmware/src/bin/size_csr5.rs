//! Size probe: csr5 SpMV in `f32` (see `size.rs`).
#![no_std]
#![no_main]

use cortex_m_rt::entry;
#[allow(unused_imports)]
use spblas::{Csr, Csr5, Csr5Layout, Exec, Isa, SpMv, formats::csr5::Csr5Aux};
use spblas_firmware::{GRID, N, NNZ_MAX, exit, spmv_reference, test_matrix};

type T = f32;
const PROBE: &str = "csr5";

include!("../size.rs");
