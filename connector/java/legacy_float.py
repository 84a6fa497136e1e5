"""`Double.toString` / `Float.toString` digits exactly as Java 8–18 produce them (`FloatingDecimal`).

Java 19 switched to the shortest-repr algorithm (JDK-4511638); up to Java 18 the digits come from
`FloatingDecimal.BinaryToASCIIBuffer.dtoa`, which often prints more digits than needed: about 11% of
random floats (`4.95433023E11`, `1.17549435E-38`) and 1% of doubles (`2.09806544416968602E18`).
Debezium 3.6 runs on Java 17 (so does the reference harness), so its JSON carries these digits.

This module re-derives that algorithm with Python integers: the integer fast path (`developLongDigits`
with its "insignificant digits" rounding), the estimated decimal exponent, the symmetric stopping test
with its power-of-two tweak, and the 32/64-bit intermediate arithmetic of the int and long paths,
whose overflow behaviour is reproduced by wrapping. Validated against 100k values printed by Java 17.
"""

from __future__ import annotations

import math
import struct

__all__ = ["legacy_double_digits", "legacy_float_digits", "layout"]

_EXP_SHIFT = 52
_FRACT_HOB = 1 << 52
_SIGNIF_MASK = (1 << 52) - 1
_EXP_ONE = 0x3FF << 52
_MAX_SMALL_BIN_EXP = 62
_MIN_SMALL_BIN_EXP = -(63 // 3)
# approximately ceil(log2(5^i))
_N_5_BITS = (0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61)
_INSIGNIFICANT_FOR_POW2 = (
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 9,
    10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17,
    18, 18, 18, 19,
)
_D = struct.Struct("<d")
_Q = struct.Struct("<Q")


def _wrap(value: int, bits: int) -> int:
    mask = (1 << bits) - 1
    value &= mask
    return value - (1 << bits) if value >> (bits - 1) else value


def _jdiv(a: int, b: int) -> int:
    """Java integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _jrem(a: int, b: int) -> int:
    return a - _jdiv(a, b) * b


def _estimate_dec_exp(fract_bits: int, bin_exp: int) -> int:
    d2 = _D.unpack(_Q.pack(_EXP_ONE | (fract_bits & _SIGNIF_MASK)))[0]
    d = (d2 - 1.5) * 0.289529654 + 0.176091259 + float(bin_exp) * 0.301029995663981
    return math.floor(d)


def _long_digits(dec_exponent: int, value: int, insignificant: int) -> tuple[str, int]:
    if insignificant:
        pow10 = 10**insignificant
        residue = value % pow10
        value //= pow10
        dec_exponent += insignificant
        if residue >= pow10 >> 1:
            value += 1
    text = str(value)
    return text.rstrip("0"), dec_exponent + len(text)


def _roundup(digits: list[str], dec_exponent: int) -> int:
    i = len(digits) - 1
    q = digits[i]
    if q == "9":
        while q == "9" and i > 0:
            digits[i] = "0"
            i -= 1
            q = digits[i]
        if q == "9":  # carry out: keeps the digit count, as Java does
            digits[0] = "1"
            return dec_exponent + 1
    digits[i] = chr(ord(q) + 1)
    return dec_exponent


def _dtoa(bin_exp: int, fract_bits: int, n_significant_bits: int) -> tuple[str, int]:
    """Digits and decimal exponent (value = 0.DIGITS × 10^exp) of a positive finite number."""
    tail_zeros = (fract_bits & -fract_bits).bit_length() - 1
    n_fract_bits = _EXP_SHIFT + 1 - tail_zeros
    n_tiny_bits = max(0, n_fract_bits - bin_exp - 1)
    if _MIN_SMALL_BIN_EXP <= bin_exp <= _MAX_SMALL_BIN_EXP:
        if n_tiny_bits < len(_N_5_BITS) and n_fract_bits + _N_5_BITS[n_tiny_bits] < 64 and n_tiny_bits == 0:
            insignificant = 0
            if bin_exp > n_significant_bits:
                p2 = bin_exp - n_significant_bits - 1
                insignificant = _INSIGNIFICANT_FOR_POW2[p2] if 1 < p2 < len(_INSIGNIFICANT_FOR_POW2) else 0
            if bin_exp >= _EXP_SHIFT:
                value = fract_bits << (bin_exp - _EXP_SHIFT)
            else:
                value = fract_bits >> (_EXP_SHIFT - bin_exp)
            return _long_digits(0, value, insignificant)

    dec_exp = _estimate_dec_exp(fract_bits, bin_exp)
    b5 = max(0, -dec_exp)
    b2 = b5 + n_tiny_bits + bin_exp
    s5 = max(0, dec_exp)
    s2 = s5 + n_tiny_bits
    m5 = b5
    m2 = b2 - n_significant_bits
    fract_bits >>= tail_zeros
    b2 -= n_fract_bits - 1
    common = min(b2, s2)
    b2 -= common
    s2 -= common
    m2 -= common
    if n_fract_bits == 1:  # Java's power-of-two "hack" on the lower neighbour's distance
        m2 -= 1
    if m2 < 0:
        b2 -= m2
        s2 -= m2
        m2 = 0

    b_bits = n_fract_bits + b2 + (_N_5_BITS[b5] if b5 < len(_N_5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N_5_BITS[s5 + 1] if s5 + 1 < len(_N_5_BITS) else (s5 + 1) * 3)
    digits: list[str] = []
    plain = -3 <= dec_exp < 8  # Java needs a digit after the point in E-form: no early stop there

    if b_bits < 64 and ten_s_bits < 64:
        # Java's int (or long) path: b, s, tens and 10·(b % s) always fit; only m·10, b + m and
        # 2b - tens can overflow, so only those are wrapped (checked cheaply against the limit).
        width = 32 if (b_bits < 32 and ten_s_bits < 32) else 64
        limit = (1 << (width - 1)) - 1
        b = (fract_bits * 5**b5) << b2
        s = 5**s5 << s2
        m = 5**m5 << m2
        tens = s * 10
        q, r = divmod(b, s)
        b = 10 * r
        m *= 10
        if m > limit:
            m = _wrap(m, width)
        low = b < m
        bm = b + m
        high = (bm if -limit <= bm <= limit else _wrap(bm, width)) > tens
        if q == 0 and not high:
            dec_exp -= 1
        else:
            digits.append(chr(48 + q))
        if not plain:
            high = low = False
        while not low and not high:
            q, r = divmod(b, s)
            b = 10 * r
            m *= 10
            if m > limit or m < -limit:
                m = _wrap(m, width)
            if m > 0:
                low = b < m
                bm = b + m
                high = (bm if bm <= limit else _wrap(bm, width)) > tens
            else:  # m overflowed
                low = high = True
            digits.append(chr(48 + q))
        low_digit_difference = _wrap(_wrap(b << 1, width) - tens, width)
    else:
        big_s = 5**s5 << s2
        big_b = (fract_bits * 5**b5) << b2
        big_m = 5 ** (m5 + 1) << (m2 + 1)
        ten_s = big_s * 10
        q, rem = divmod(big_b, big_s)
        big_b = rem * 10
        low = big_b < big_m
        high = big_b + big_m >= ten_s
        if q == 0 and not high:
            dec_exp -= 1
        else:
            digits.append(chr(48 + q))
        if not plain:
            high = low = False
        while not low and not high:
            q, rem = divmod(big_b, big_s)
            big_b = rem * 10
            big_m *= 10
            low = big_b < big_m
            high = big_b + big_m >= ten_s
            digits.append(chr(48 + q))
        low_digit_difference = (big_b << 1) - ten_s if (high and low) else 0

    dec_exponent = dec_exp + 1
    if high:
        if low:
            if low_digit_difference == 0:
                if (ord(digits[-1]) & 1) != 0:
                    dec_exponent = _roundup(digits, dec_exponent)
            elif low_digit_difference > 0:
                dec_exponent = _roundup(digits, dec_exponent)
        else:
            dec_exponent = _roundup(digits, dec_exponent)
    return "".join(digits), dec_exponent


def legacy_double_digits(value: float) -> tuple[str, int]:
    """(digits, decExponent) for a positive finite non-zero double."""
    bits = _Q.unpack(_D.pack(value))[0] & 0x7FFFFFFFFFFFFFFF
    fract_bits = bits & _SIGNIF_MASK
    bin_exp = bits >> _EXP_SHIFT
    if bin_exp == 0:
        leading_zeros = 64 - fract_bits.bit_length()
        shift = leading_zeros - (63 - _EXP_SHIFT)
        fract_bits <<= shift
        bin_exp = 1 - shift
        n_significant_bits = 64 - leading_zeros
    else:
        fract_bits |= _FRACT_HOB
        n_significant_bits = _EXP_SHIFT + 1
    return _dtoa(bin_exp - 1023, fract_bits, n_significant_bits)


_F = struct.Struct("<f")
_I = struct.Struct("<I")


def legacy_float_digits(value: float) -> tuple[str, int]:
    """(digits, decExponent) for a positive finite non-zero float32 value."""
    bits = _I.unpack(_F.pack(value))[0] & 0x7FFFFFFF
    fract_bits = bits & ((1 << 23) - 1)
    bin_exp = bits >> 23
    if bin_exp == 0:
        leading_zeros = 32 - fract_bits.bit_length()
        shift = leading_zeros - (31 - 23)
        fract_bits <<= shift
        bin_exp = 1 - shift
        n_significant_bits = 32 - leading_zeros
    else:
        fract_bits |= 1 << 23
        n_significant_bits = 24
    return _dtoa(bin_exp - 127, fract_bits << (_EXP_SHIFT - 23), n_significant_bits)


def layout(digits: str, dec_exponent: int, negative: bool) -> str:
    """`BinaryToASCIIBuffer.getChars`: value = 0.DIGITS × 10^dec_exponent."""
    sign = "-" if negative else ""
    n = len(digits)
    if 0 < dec_exponent < 8:
        head = digits[: min(n, dec_exponent)]
        if n < dec_exponent:
            return f"{sign}{head}{'0' * (dec_exponent - n)}.0"
        return f"{sign}{head}.{digits[dec_exponent:] or '0'}"
    if -3 < dec_exponent <= 0:
        return f"{sign}0.{'0' * -dec_exponent}{digits}"
    exponent = -dec_exponent + 1 if dec_exponent <= 0 else dec_exponent - 1
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{'-' if dec_exponent <= 0 else ''}{exponent}"
