//! The C ABI of spblas: `libspblas.a` and `libspblas.so`, declared by
//! `include/spblas.h` (generated from this crate by cbindgen).
//!
//! Every function returns an `int32_t` status, `SPBLAS_OK` (0) or an `SPBLAS_ERR_*` code
//! that `spblas_status_message` names. NULL pointers, misaligned pointers, lengths that
//! overflow and invalid matrices are statuses, never undefined behaviour or an abort, and
//! on error the caller's outputs are untouched (unless a function's comment says
//! otherwise). What the library cannot check is the caller's promise: that every pointer
//! points to as many initialised elements as its length says, that outputs overlap no
//! input, and that nothing else writes the arrays during the call.
//!
//! Types: values `double` or `float`, indices `uint32_t`, `uint64_t`, `int32_t` or
//! `int64_t`, named by suffix (`_f64_u32`, `_f64_u64`, `_f64_i32`, `_f64_i64`, `_f32_u32`,
//! ...). The signed ones are what MKL (`MKL_INT`), SciPy and CSparse hand over: their
//! arrays are borrowed as they are, and a negative index makes the matrix invalid
//! (`SPBLAS_ERR_INVALID_MATRIX`). Every kernel runs on the widest
//! instruction set of this machine (detected once, also without `std`), on the calling
//! thread. The plan functions allocate (the default `std` feature); everything else works
//! on caller buffers only.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(feature = "std")]
extern crate std;

mod exports;
mod ops;
mod raw;
mod status;
mod types;

pub use exports::*;
pub use status::{
    SPBLAS_ERR_BUFFER_TOO_SMALL, SPBLAS_ERR_DIMENSION, SPBLAS_ERR_INVALID_ARGUMENT,
    SPBLAS_ERR_INVALID_MATRIX, SPBLAS_ERR_ISA_UNAVAILABLE, SPBLAS_ERR_MISALIGNED, SPBLAS_ERR_NULL_POINTER,
    SPBLAS_ERR_OUT_OF_MEMORY, SPBLAS_ERR_TOO_LARGE, SPBLAS_OK,
};
pub use types::spblas_csr5_layout;

use core::ffi::c_char;

/// The sentence naming `status` (`"success"` for `SPBLAS_OK`, `"unknown status"` for a
/// code no function returns): a static, NUL-terminated string, never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn spblas_status_message(status: i32) -> *const c_char {
    status::message(status).as_ptr()
}

/// The instruction set the kernels run on (`"portable"`, `"avx2"`, `"avx512"`, `"neon"`,
/// `"wasm128"`):
/// the widest this machine has, detected once. A static, NUL-terminated string.
#[unsafe(no_mangle)]
pub extern "C" fn spblas_isa_name() -> *const c_char {
    let name = match spblas_core::Isa::detect() {
        spblas_core::Isa::Avx2 => c"avx2",
        spblas_core::Isa::Avx512 => c"avx512",
        spblas_core::Isa::Neon => c"neon",
        spblas_core::Isa::Wasm128 => c"wasm128",
        _ => c"portable",
    };
    name.as_ptr()
}

/// Without `std` there is no panic runtime; no function of this library panics (every
/// failure is a status), so this only satisfies the linker.
#[cfg(all(not(feature = "std"), not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::path::Path;

    /// The committed header is what cbindgen generates from this crate now. To update it:
    /// `SPBLAS_BLESS_HEADER=1 cargo test -p spblas-capi`.
    #[test]
    fn header_is_current() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
        let bindings = cbindgen::Builder::new()
            .with_crate(dir)
            .with_config(config)
            .generate()
            .expect("cbindgen parses the crate");
        let mut fresh = std::vec::Vec::new();
        bindings.write(&mut fresh);
        let path = dir.join("include/spblas.h");
        if std::env::var_os("SPBLAS_BLESS_HEADER").is_some() {
            std::fs::write(&path, &fresh).expect("write include/spblas.h");
        }
        let committed = std::fs::read(&path).unwrap_or_default();
        assert!(
            committed == fresh,
            "include/spblas.h is stale: run `SPBLAS_BLESS_HEADER=1 cargo test -p spblas-capi` and commit it"
        );
    }

    #[test]
    fn every_status_has_its_own_message() {
        let mut seen = std::collections::BTreeSet::new();
        for s in 0..=9 {
            let m = super::status::message(s);
            assert!(m != c"unknown status", "status {s}");
            assert!(seen.insert(m), "status {s} repeats a message");
        }
        assert_eq!(super::status::message(10), c"unknown status");
        assert_eq!(super::status::message(-1), c"unknown status");
    }
}
