//! The bit-packed CSR5 tile descriptor (thesis 6.3.4–6.3.5).
//!
//! A tile of `omega` lanes (columns) × `sigma` steps (rows) has one `u32` word per lane.
//! From the least significant bit up, a lane's word holds:
//!
//! | bits | field | meaning |
//! |---|---|---|
//! | `sigma` | `bit_flag` | bit `j` set: the lane's entry at step `j` is the first of a matrix row (a segment head); bit 0 of lane 0 is always set, sealing the tile's first segment (6.3.4) |
//! | `ybits` | `y_offset` | number of heads in the lanes left of this one: the index, within the tile, of the lane's first segment |
//! | `sbits` | `seg_offset` | number of lanes right of this one, contiguous, that hold no head: how far the lane's last segment runs on (Alg. 13) |
//!
//! `ybits` is the width of `(omega - 1) * sigma` (the largest `y_offset`), `sbits` the width
//! of `omega - 1`; together with `sigma` they must fit 32 bits, which bounds `sigma` for a
//! given `omega` ([`DescFormat::max_sigma`]). For `omega = 4, sigma = 16` (the thesis's
//! AVX2 double tile) a word spends 16 + 6 + 2 = 24 bits.

/// Bits needed to write `v` in binary (`0` for `v == 0`).
const fn width(v: usize) -> u32 {
    usize::BITS - v.leading_zeros()
}

/// A mask of the `bits` low bits.
#[inline(always)]
const fn low(bits: u32) -> u32 {
    if bits >= 32 { u32::MAX } else { (1u32 << bits) - 1 }
}

/// Where the fields of a lane word sit, for one `(omega, sigma)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescFormat {
    sigma: u32,
    ybits: u32,
    sbits: u32,
}

impl DescFormat {
    /// The packing for tiles of `omega` lanes × `sigma` steps; `None` when `omega` or
    /// `sigma` is zero or the three fields do not fit 32 bits.
    pub const fn new(omega: usize, sigma: usize) -> Option<DescFormat> {
        if omega == 0 || sigma == 0 || sigma > 32 || omega > 64 {
            return None;
        }
        let ybits = width((omega - 1) * sigma);
        let sbits = width(omega - 1);
        if sigma as u32 + ybits + sbits > 32 {
            return None;
        }
        Some(DescFormat { sigma: sigma as u32, ybits, sbits })
    }

    /// The largest `sigma` whose descriptor fits 32 bits for tiles of `omega` lanes.
    pub const fn max_sigma(omega: usize) -> usize {
        let mut s = 32;
        while s > 0 && DescFormat::new(omega, s).is_none() {
            s -= 1;
        }
        s
    }

    /// The `bit_flag` field: bit `j` is step `j`.
    #[inline(always)]
    pub fn bit_flag(self, word: u32) -> u32 {
        word & low(self.sigma)
    }

    /// The `y_offset` field.
    #[inline(always)]
    pub fn y_offset(self, word: u32) -> usize {
        ((word >> self.sigma) & low(self.ybits)) as usize
    }

    /// The `seg_offset` field.
    #[inline(always)]
    pub fn seg_offset(self, word: u32) -> usize {
        // `sigma + ybits < 32` whenever `sbits > 0`; with `sbits == 0` the field is empty.
        if self.sbits == 0 { 0 } else { ((word >> (self.sigma + self.ybits)) & low(self.sbits)) as usize }
    }

    /// Packs the three fields; each must fit its width (checked in debug builds).
    #[inline]
    pub fn pack(self, bit_flag: u32, y_offset: usize, seg_offset: usize) -> u32 {
        debug_assert!(bit_flag <= low(self.sigma));
        debug_assert!(y_offset as u32 <= low(self.ybits) && seg_offset as u32 <= low(self.sbits));
        let mut w = bit_flag | ((y_offset as u32) << self.sigma);
        if self.sbits > 0 {
            w |= (seg_offset as u32) << (self.sigma + self.ybits);
        }
        w
    }
}

/// The descriptor of one tile from its `omega` lane words: the per-lane `bit_flag`,
/// `y_offset` and `seg_offset` (Alg. 25), decoded.
///
/// `heads(t)` lists the segment heads in storage order (lane by lane, step by step),
/// which is the original CSR order of the tile's entries.
#[derive(Clone, Copy, Debug)]
pub struct TileDesc<'a> {
    format: DescFormat,
    words: &'a [u32],
}

impl<'a> TileDesc<'a> {
    /// Wraps the `omega` words of one tile.
    pub fn new(format: DescFormat, words: &'a [u32]) -> TileDesc<'a> {
        TileDesc { format, words }
    }

    /// Lanes in the tile (`omega`).
    pub fn omega(&self) -> usize {
        self.words.len()
    }

    /// Lane `i`'s `bit_flag` (bit `j` = step `j`), `y_offset` and `seg_offset`; zeros
    /// for a lane past the end.
    pub fn lane(&self, i: usize) -> (u32, usize, usize) {
        let w = self.words.get(i).copied().unwrap_or(0);
        (self.format.bit_flag(w), self.format.y_offset(w), self.format.seg_offset(w))
    }

    /// Number of segment heads (segments) in the tile.
    pub fn segments(&self) -> usize {
        self.words.iter().map(|&w| self.format.bit_flag(w).count_ones() as usize).sum()
    }
}
