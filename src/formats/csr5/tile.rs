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
//! of `omega - 1`. For `omega = 4, sigma = 16` (the thesis's AVX2 double tile) a word
//! spends 16 + 6 + 2 = 24 bits.
//!
//! When the three fields do not fit 32 bits (taller tiles: `omega = 8, sigma = 32` needs
//! 32 + 8 + 3), the descriptor is *split*: `2 * omega` words per tile, the first `omega`
//! holding each lane's `bit_flag` alone and the next `omega` its `y_offset` (low `ybits`)
//! and `seg_offset` (above it). The kernels read the heads of step `j` the same way in
//! both forms (bit `j` of the first `omega` words); [`DescFormat::words_per_lane`] says
//! which form a tile shape has. `sigma` is at most 32 either way.

/// Bits needed to write `v` in binary (`0` for `v == 0`).
const fn width(v: usize) -> u32 {
    usize::BITS - v.leading_zeros()
}

/// A mask of the `bits` low bits.
#[inline(always)]
const fn low(bits: u32) -> u32 {
    if bits >= 32 { u32::MAX } else { (1u32 << bits) - 1 }
}

/// Where the fields of a lane's descriptor sit, for one `(omega, sigma)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescFormat {
    sigma: u32,
    ybits: u32,
    sbits: u32,
    /// Where `y_offset` starts in a lane's offset word: `sigma` packed, 0 split.
    shift: u32,
}

impl DescFormat {
    /// The descriptor for tiles of `omega` lanes × `sigma` steps: packed (one word per
    /// lane) when the three fields fit 32 bits, split (two) otherwise; `None` when
    /// `omega` or `sigma` is zero, `sigma > 32` or `omega > 64`.
    pub const fn new(omega: usize, sigma: usize) -> Option<DescFormat> {
        if omega == 0 || sigma == 0 || sigma > 32 || omega > 64 {
            return None;
        }
        let ybits = width((omega - 1) * sigma);
        let sbits = width(omega - 1);
        // Packed needs `sigma < 32` too, so every shift stays below 32 (with one lane,
        // `sigma = 32` leaves zero-width offsets above a full `bit_flag`).
        let packed = sigma < 32 && sigma as u32 + ybits + sbits <= 32;
        Some(DescFormat { sigma: sigma as u32, ybits, sbits, shift: if packed { sigma as u32 } else { 0 } })
    }

    /// The largest `sigma` whose descriptor packs into one word per lane for tiles of
    /// `omega` lanes (taller tiles, up to 32 steps, take two).
    pub const fn max_packed_sigma(omega: usize) -> usize {
        let mut s = 32;
        while s > 0 {
            match DescFormat::new(omega, s) {
                Some(f) if f.words_per_lane() == 1 => return s,
                _ => s -= 1,
            }
        }
        0
    }

    /// Width in bits of the `y_offset` field.
    pub const fn y_bits(self) -> u32 {
        self.ybits
    }

    /// Width in bits of the `seg_offset` field.
    pub const fn seg_bits(self) -> u32 {
        self.sbits
    }

    /// `u32` words per lane: 1 packed, 2 split (`bit_flag` words, then offset words).
    #[inline(always)]
    pub const fn words_per_lane(self) -> usize {
        if self.shift == 0 { 2 } else { 1 }
    }

    /// Where lane `i`'s offset word sits among a tile's `omega * words_per_lane` words:
    /// `(words_per_lane - 1) * omega + i`.
    #[inline(always)]
    pub const fn offset_word(self, omega: usize, i: usize) -> usize {
        (self.words_per_lane() - 1) * omega + i
    }

    /// The `bit_flag` field of a lane's (first) word: bit `j` is step `j`.
    #[inline(always)]
    pub fn bit_flag(self, word: u32) -> u32 {
        word & low(self.sigma)
    }

    /// The `y_offset` field of a lane's offset word ([`DescFormat::offset_word`]).
    #[inline(always)]
    pub fn y_offset(self, word: u32) -> usize {
        // `shift < 32`: packed, `sigma + ybits + sbits <= 32` with `ybits > 0` here.
        ((word >> self.shift) & low(self.ybits)) as usize
    }

    /// The `seg_offset` field of a lane's offset word.
    #[inline(always)]
    pub fn seg_offset(self, word: u32) -> usize {
        // `shift + ybits < 32` whenever `sbits > 0`; with `sbits == 0` the field is empty.
        if self.sbits == 0 { 0 } else { ((word >> (self.shift + self.ybits)) & low(self.sbits)) as usize }
    }

    /// Writes lane `i`'s three fields into the `omega * words_per_lane` words of its
    /// tile; each must fit its width (checked in debug builds; the conversion is the only
    /// caller, and its fields fit by construction).
    #[inline]
    pub(crate) fn pack(
        self,
        words: &mut [u32],
        omega: usize,
        i: usize,
        bit_flag: u32,
        y_offset: usize,
        seg_offset: usize,
    ) {
        debug_assert!(bit_flag <= low(self.sigma));
        debug_assert!(y_offset as u32 <= low(self.ybits) && seg_offset as u32 <= low(self.sbits));
        let mut off = (y_offset as u32) << self.shift;
        if self.sbits > 0 {
            off |= (seg_offset as u32) << (self.shift + self.ybits);
        }
        let (flag_word, off_word) =
            if self.words_per_lane() == 1 { (bit_flag | off, None) } else { (bit_flag, Some(off)) };
        if let Some(w) = words.get_mut(i) {
            *w = flag_word;
        }
        if let (Some(off), Some(w)) = (off_word, words.get_mut(omega + i)) {
            *w = off;
        }
    }
}

/// The descriptor of one tile from its `omega * words_per_lane` words: the per-lane
/// `bit_flag`, `y_offset` and `seg_offset` (Alg. 25), decoded.
///
/// `heads(t)` lists the segment heads in storage order (lane by lane, step by step),
/// which is the original CSR order of the tile's entries.
#[derive(Clone, Copy, Debug)]
pub struct TileDesc<'a> {
    format: DescFormat,
    words: &'a [u32],
}

impl<'a> TileDesc<'a> {
    /// Wraps the `omega * format.words_per_lane()` words of one tile.
    pub fn new(format: DescFormat, words: &'a [u32]) -> TileDesc<'a> {
        TileDesc { format, words }
    }

    /// Lanes in the tile (`omega`).
    pub fn omega(&self) -> usize {
        self.words.len() / self.format.words_per_lane()
    }

    /// Lane `i`'s `bit_flag` (bit `j` = step `j`), `y_offset` and `seg_offset`; zeros
    /// for a lane past the end.
    pub fn lane(&self, i: usize) -> (u32, usize, usize) {
        if i >= self.omega() {
            return (0, 0, 0);
        }
        let f = self.words.get(i).copied().unwrap_or(0);
        let o = self.words.get(self.format.offset_word(self.omega(), i)).copied().unwrap_or(0);
        (self.format.bit_flag(f), self.format.y_offset(o), self.format.seg_offset(o))
    }

    /// Number of segment heads (segments) in the tile.
    pub fn segments(&self) -> usize {
        let flags = self.words.get(..self.omega()).unwrap_or(&[]);
        flags.iter().map(|&w| self.format.bit_flag(w).count_ones() as usize).sum()
    }
}
