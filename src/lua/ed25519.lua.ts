/**
 * Ed25519 signature verification in pure Lua 5.1 (contract §13.1), for the Lua library's signed checks.
 * Executors run Lua 5.1 (or Luau) with no C modules and no bit library, and Lua 5.1's numbers are doubles, so:
 * - SHA-512 keeps each 64-bit word as two 32-bit halves; XOR comes from a 256×256 byte table, AND from
 *   a AND b = (a + b - (a XOR b)) / 2, rotations and shifts from exact division and multiplication by powers of two.
 * - The field GF(2^255 - 19) is TweetNaCl's: 16 signed limbs of 16 bits; a product of two elements sums at most
 *   16 limb products below 2^38 each, far inside a double's 53 exact bits. The multiplication is unrolled (built
 *   below as Lua text), which makes it about three times faster than loops in Lua 5.1.
 * - Verification computes [S]B + [h](-A) in one pass over the bits of both scalars (Straus–Shamir), encodes it
 *   and compares it with R. Everything here is public, so nothing needs to run in constant time.
 *
 * The text is the body of a Lua function returning { sha512, verify, base64_decode }; the library embeds it as
 * `local crypto = (function() <text> end)()`. It holds no backslash, so it survives this template literal as is.
 */

const LIMBS = 16;

/** Lua text of `local function <name>(o, a, b)`: o = a·b mod 2^255-19, unrolled; `square` shares the products. */
function fieldMulLua(name: string, square: boolean): string {
  const lines: string[] = [];
  const args = square ? '(o, a)' : '(o, a, b)';
  lines.push(`local function ${name}${args}`);
  const as = Array.from({ length: LIMBS }, (_, i) => `a${i}`);
  const bs = Array.from({ length: LIMBS }, (_, i) => `b${i}`);
  lines.push(`  local ${as.join(', ')} = ${as.map((_, i) => `a[${i + 1}]`).join(', ')}`);
  if (!square) lines.push(`  local ${bs.join(', ')} = ${bs.map((_, i) => `b[${i + 1}]`).join(', ')}`);
  for (let k = 0; k < 2 * LIMBS - 1; k++) {
    const terms: string[] = [];
    for (let i = Math.max(0, k - LIMBS + 1); i <= Math.min(k, LIMBS - 1); i++) {
      const j = k - i;
      if (square) {
        if (i < j) terms.push(`2*a${i}*a${j}`);
        else if (i === j) terms.push(`a${i}*a${i}`);
      } else terms.push(`a${i}*b${j}`);
    }
    lines.push(`  local t${k} = ${terms.join(' + ')}`);
  }
  // 2^256 = 38 (mod p): the high half folds into the low half.
  for (let k = 0; k < LIMBS - 1; k++) lines.push(`  t${k} = t${k} + 38*t${k + LIMBS}`);
  // Two carry passes (TweetNaCl's car25519 twice) bring every limb back near 16 bits.
  lines.push('  local c');
  for (let pass = 0; pass < 2; pass++) {
    for (let k = 0; k < LIMBS; k++) {
      lines.push(`  c = floor(t${k} / 65536); t${k} = t${k} - c*65536`);
      lines.push(k < LIMBS - 1 ? `  t${k + 1} = t${k + 1} + c` : '  t0 = t0 + 38*c');
    }
  }
  for (let k = 0; k < LIMBS; k++) lines.push(`  o[${k + 1}] = t${k}`);
  lines.push('end');
  return lines.join('\n');
}

export const ED25519_LUA = `
local floor, byte, char, sub = math.floor, string.byte, string.char, string.sub

-- SHA-512 -------------------------------------------------------------------------------------------------
local XOR = {}
do
  local x4 = {}
  for a = 0, 15 do
    for b = 0, 15 do
      local r, p, x, y = 0, 1, a, b
      for _ = 1, 4 do
        if x % 2 ~= y % 2 then r = r + p end
        x, y, p = floor(x / 2), floor(y / 2), p * 2
      end
      x4[a * 16 + b] = r
    end
  end
  for a = 0, 255 do
    local ah, al = floor(a / 16), a % 16
    for b = 0, 255 do
      XOR[a * 256 + b] = x4[ah * 16 + floor(b / 16)] * 16 + x4[al * 16 + b % 16]
    end
  end
end

local function xor32(a, b)
  local a0, b0 = a % 256, b % 256
  a, b = (a - a0) / 256, (b - b0) / 256
  local a1, b1 = a % 256, b % 256
  a, b = (a - a1) / 256, (b - b1) / 256
  local a2, b2 = a % 256, b % 256
  a, b = (a - a2) / 256, (b - b2) / 256
  return XOR[a0 * 256 + b0] + XOR[a1 * 256 + b1] * 256 + XOR[a2 * 256 + b2] * 65536 + XOR[a * 256 + b] * 16777216
end
local function and32(a, b) return (a + b - xor32(a, b)) / 2 end

local W32 = 4294967296
local K = {
  "428a2f98d728ae22", "7137449123ef65cd", "b5c0fbcfec4d3b2f", "e9b5dba58189dbbc", "3956c25bf348b538",
  "59f111f1b605d019", "923f82a4af194f9b", "ab1c5ed5da6d8118", "d807aa98a3030242", "12835b0145706fbe",
  "243185be4ee4b28c", "550c7dc3d5ffb4e2", "72be5d74f27b896f", "80deb1fe3b1696b1", "9bdc06a725c71235",
  "c19bf174cf692694", "e49b69c19ef14ad2", "efbe4786384f25e3", "0fc19dc68b8cd5b5", "240ca1cc77ac9c65",
  "2de92c6f592b0275", "4a7484aa6ea6e483", "5cb0a9dcbd41fbd4", "76f988da831153b5", "983e5152ee66dfab",
  "a831c66d2db43210", "b00327c898fb213f", "bf597fc7beef0ee4", "c6e00bf33da88fc2", "d5a79147930aa725",
  "06ca6351e003826f", "142929670a0e6e70", "27b70a8546d22ffc", "2e1b21385c26c926", "4d2c6dfc5ac42aed",
  "53380d139d95b3df", "650a73548baf63de", "766a0abb3c77b2a8", "81c2c92e47edaee6", "92722c851482353b",
  "a2bfe8a14cf10364", "a81a664bbc423001", "c24b8b70d0f89791", "c76c51a30654be30", "d192e819d6ef5218",
  "d69906245565a910", "f40e35855771202a", "106aa07032bbd1b8", "19a4c116b8d2d0c8", "1e376c085141ab53",
  "2748774cdf8eeb99", "34b0bcb5e19b48a8", "391c0cb3c5c95a63", "4ed8aa4ae3418acb", "5b9cca4f7763e373",
  "682e6ff3d6b2b8a3", "748f82ee5defb2fc", "78a5636f43172f60", "84c87814a1f0ab72", "8cc702081a6439ec",
  "90befffa23631e28", "a4506cebde82bde9", "bef9a3f7b2c67915", "c67178f2e372532b", "ca273eceea26619c",
  "d186b8c721c0c207", "eada7dd6cde0eb1e", "f57d4f7fee6ed178", "06f067aa72176fba", "0a637dc5a2c898a6",
  "113f9804bef90dae", "1b710b35131c471b", "28db77f523047d84", "32caab7b40c72493", "3c9ebe0a15c9bebc",
  "431d67c49c100d4c", "4cc5d4becb3e42b6", "597f299cfc657e2a", "5fcb6fab3ad6faec", "6c44198c4a475817",
}
local KH, KL = {}, {}
for i = 1, 80 do
  KH[i], KL[i] = tonumber(sub(K[i], 1, 8), 16), tonumber(sub(K[i], 9, 16), 16)
end
local H0 = {
  "6a09e667f3bcc908", "bb67ae8584caa73b", "3c6ef372fe94f82b", "a54ff53a5f1d36f1",
  "510e527fade682d1", "9b05688c2b3e6c1f", "1f83d9abfb41bd6b", "5be0cd19137e2179",
}

-- Rotation right of the 64-bit word (hi, lo) by n (1..63), and shift right by n (1..31).
local function rotr(hi, lo, n)
  if n >= 32 then hi, lo, n = lo, hi, n - 32 end
  local p = 2 ^ n
  local q = W32 / p
  local hl, ll = hi % p, lo % p
  return (hi - hl) / p + ll * q, (lo - ll) / p + hl * q
end
local function shr(hi, lo, n)
  local p = 2 ^ n
  local hl = hi % p
  return (hi - hl) / p, (lo - lo % p) / p + hl * (W32 / p)
end
local function xor64(ah, al, bh, bl) return xor32(ah, bh), xor32(al, bl) end
local function xor3(ah, al, bh, bl, ch, cl) return xor32(xor32(ah, bh), ch), xor32(xor32(al, bl), cl) end

-- The SHA-512 digest of the string msg, as an array of 64 byte values.
local function sha512_bytes(msg)
  local len = #msg
  local extra = 128 - (len + 17) % 128
  if extra == 128 then extra = 0 end
  local bits = len * 8
  local tail = {}
  for i = 8, 1, -1 do
    tail[i] = char(bits % 256)
    bits = floor(bits / 256)
  end
  msg = msg .. char(128) .. string.rep(char(0), extra + 8) .. table.concat(tail)
  local hh, hl = {}, {}
  for i = 1, 8 do
    hh[i], hl[i] = tonumber(sub(H0[i], 1, 8), 16), tonumber(sub(H0[i], 9, 16), 16)
  end
  local wh, wl = {}, {}
  for block = 1, #msg, 128 do
    for i = 1, 16 do
      local o = block + (i - 1) * 8
      local b1, b2, b3, b4, b5, b6, b7, b8 = byte(msg, o, o + 7)
      wh[i] = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
      wl[i] = ((b5 * 256 + b6) * 256 + b7) * 256 + b8
    end
    for i = 17, 80 do
      local xh, xl = wh[i - 15], wl[i - 15]
      local r1h, r1l = rotr(xh, xl, 1)
      local r8h, r8l = rotr(xh, xl, 8)
      local s7h, s7l = shr(xh, xl, 7)
      local s0h, s0l = xor3(r1h, r1l, r8h, r8l, s7h, s7l)
      xh, xl = wh[i - 2], wl[i - 2]
      local r19h, r19l = rotr(xh, xl, 19)
      local r61h, r61l = rotr(xh, xl, 61)
      local s6h, s6l = shr(xh, xl, 6)
      local s1h, s1l = xor3(r19h, r19l, r61h, r61l, s6h, s6l)
      local lo = wl[i - 16] + s0l + wl[i - 7] + s1l
      local carry = floor(lo / W32)
      wl[i] = lo - carry * W32
      wh[i] = (wh[i - 16] + s0h + wh[i - 7] + s1h + carry) % W32
    end
    local ah, al, bh, bl, ch, cl, dh, dl = hh[1], hl[1], hh[2], hl[2], hh[3], hl[3], hh[4], hl[4]
    local eh, el, fh, fl, gh, gl, h8h, h8l = hh[5], hl[5], hh[6], hl[6], hh[7], hl[7], hh[8], hl[8]
    for i = 1, 80 do
      local x1h, x1l = rotr(eh, el, 14)
      local x2h, x2l = rotr(eh, el, 18)
      local x3h, x3l = rotr(eh, el, 41)
      local S1h, S1l = xor3(x1h, x1l, x2h, x2l, x3h, x3l)
      -- ch = g XOR (e AND (f XOR g))
      local chh = xor32(gh, and32(eh, xor32(fh, gh)))
      local chl = xor32(gl, and32(el, xor32(fl, gl)))
      local lo = h8l + S1l + chl + KL[i] + wl[i]
      local carry = floor(lo / W32)
      local t1l = lo - carry * W32
      local t1h = (h8h + S1h + chh + KH[i] + wh[i] + carry) % W32
      x1h, x1l = rotr(ah, al, 28)
      x2h, x2l = rotr(ah, al, 34)
      x3h, x3l = rotr(ah, al, 39)
      local S0h, S0l = xor3(x1h, x1l, x2h, x2l, x3h, x3l)
      -- maj = (a AND b) + (c AND (a XOR b)): the two never share a bit
      local abh, abl = xor64(ah, al, bh, bl)
      local mjh = and32(ah, bh) + and32(ch, abh)
      local mjl = and32(al, bl) + and32(cl, abl)
      lo = S0l + mjl
      carry = floor(lo / W32)
      local t2l = lo - carry * W32
      local t2h = (S0h + mjh + carry) % W32
      h8h, h8l, gh, gl, fh, fl = gh, gl, fh, fl, eh, el
      lo = dl + t1l
      carry = floor(lo / W32)
      el = lo - carry * W32
      eh = (dh + t1h + carry) % W32
      dh, dl, ch, cl, bh, bl = ch, cl, bh, bl, ah, al
      lo = t1l + t2l
      carry = floor(lo / W32)
      al = lo - carry * W32
      ah = (t1h + t2h + carry) % W32
    end
    local vh = { ah, bh, ch, dh, eh, fh, gh, h8h }
    local vl = { al, bl, cl, dl, el, fl, gl, h8l }
    for i = 1, 8 do
      local lo = hl[i] + vl[i]
      local carry = floor(lo / W32)
      hl[i] = lo - carry * W32
      hh[i] = (hh[i] + vh[i] + carry) % W32
    end
  end
  local out = {}
  for i = 1, 8 do
    local h, l = hh[i], hl[i]
    for j = 4, 1, -1 do
      out[(i - 1) * 8 + j] = h % 256
      out[(i - 1) * 8 + 4 + j] = l % 256
      h, l = floor(h / 256), floor(l / 256)
    end
  end
  return out
end

local function sha512(msg)
  local digest = sha512_bytes(msg)
  local hex = {}
  for i = 1, 64 do hex[i] = string.format("%02x", digest[i]) end
  return table.concat(hex)
end

-- Base64 ----------------------------------------------------------------------------------------------------
local B64 = {}
do
  local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for i = 1, 64 do B64[byte(alphabet, i)] = i - 1 end
end
-- The bytes of standard base64 text (padding optional), or nil when it is not base64.
local function base64_decode(text)
  if type(text) ~= "string" then return nil end
  text = string.gsub(text, "=+$", "")
  if #text % 4 == 1 then return nil end
  local out, n, acc, bits = {}, 0, 0, 0
  for i = 1, #text do
    local v = B64[byte(text, i)]
    if not v then return nil end
    acc, bits = acc * 64 + v, bits + 6
    if bits >= 8 then
      bits = bits - 8
      local p = 2 ^ bits
      local b = floor(acc / p)
      n = n + 1
      out[n] = b
      acc = acc - b * p
    end
  end
  return out
end

-- GF(2^255 - 19), TweetNaCl's 16 limbs of 16 bits -------------------------------------------------------
local function gf(init)
  local r = {}
  for i = 1, 16 do r[i] = init and init[i] or 0 end
  return r
end
local gf0, gf1 = gf(), gf({ 1 })
local D = gf({ 0x78a3, 0x1359, 0x4dca, 0x75eb, 0xd8ab, 0x4141, 0x0a4d, 0x0070,
  0xe898, 0x7779, 0x4079, 0x8cc7, 0xfe73, 0x2b6f, 0x6cee, 0x5203 })
local D2 = gf({ 0xf159, 0x26b2, 0x9b94, 0xebd6, 0xb156, 0x8283, 0x149a, 0x00e0,
  0xd130, 0xeef3, 0x80f2, 0x198e, 0xfce7, 0x56df, 0xd9dc, 0x2406 })
local X = gf({ 0xd51a, 0x8f25, 0x2d60, 0xc956, 0xa7b2, 0x9525, 0xc760, 0x692c,
  0xdc5c, 0xfdd6, 0xe231, 0xc0a4, 0x53fe, 0xcd6e, 0x36d3, 0x2169 })
local Y = gf({ 0x6658, 0x6666, 0x6666, 0x6666, 0x6666, 0x6666, 0x6666, 0x6666,
  0x6666, 0x6666, 0x6666, 0x6666, 0x6666, 0x6666, 0x6666, 0x6666 })
local I = gf({ 0xa0b0, 0x4a0e, 0x1b27, 0xc4ee, 0xe478, 0xad2f, 0x1806, 0x2f43,
  0xd7a7, 0x3dfb, 0x0099, 0x2b4d, 0xdf0b, 0x4fc1, 0x2480, 0x2b83 })

local function copy(o, a) for i = 1, 16 do o[i] = a[i] end end
local function A(o, a, b) for i = 1, 16 do o[i] = a[i] + b[i] end end
local function Z(o, a, b) for i = 1, 16 do o[i] = a[i] - b[i] end end
${fieldMulLua('M', false)}
${fieldMulLua('S', true)}

local function car(o)
  local c
  for i = 1, 15 do
    c = floor(o[i] / 65536)
    o[i] = o[i] - c * 65536
    o[i + 1] = o[i + 1] + c
  end
  c = floor(o[16] / 65536)
  o[16] = o[16] - c * 65536
  o[1] = o[1] + 38 * c
end

-- The unique bytes of a field element (fully reduced below p).
local function pack(n)
  local t, m = gf(n), gf()
  car(t); car(t); car(t)
  for _ = 1, 2 do
    m[1] = t[1] - 0xffed
    for i = 2, 15 do
      m[i] = t[i] - 0xffff - floor(m[i - 1] / 65536) % 2
      m[i - 1] = m[i - 1] % 65536
    end
    m[16] = t[16] - 0x7fff - floor(m[15] / 65536) % 2
    local borrow = floor(m[16] / 65536) % 2
    m[15] = m[15] % 65536
    if borrow == 0 then copy(t, m) end
  end
  local o = {}
  for i = 1, 16 do
    o[2 * i - 1] = t[i] % 256
    o[2 * i] = floor(t[i] / 256)
  end
  return o
end
local function neq(a, b)
  local x, y = pack(a), pack(b)
  for i = 1, 32 do if x[i] ~= y[i] then return true end end
  return false
end
local function parity(a) return pack(a)[1] % 2 end
local function unpack(bytes)
  local o = {}
  for i = 1, 16 do o[i] = bytes[2 * i - 1] + bytes[2 * i] * 256 end
  o[16] = o[16] % 32768
  return o
end

local function sqn(o, a, n)
  S(o, a)
  for _ = 2, n do S(o, o) end
end
-- a^(2^250 - 1) and a^11 (the common part of inversion and the square root), ref10's addition chain.
local function pow250(z)
  local t0, t1, t2, t3 = gf(), gf(), gf(), gf()
  S(t0, z)
  sqn(t1, t0, 2)
  M(t1, z, t1)
  M(t0, t0, t1)
  S(t2, t0)
  M(t1, t1, t2)
  sqn(t2, t1, 5)
  M(t1, t2, t1)
  sqn(t2, t1, 10)
  M(t2, t2, t1)
  sqn(t3, t2, 20)
  M(t2, t3, t2)
  sqn(t2, t2, 10)
  M(t1, t2, t1)
  sqn(t2, t1, 50)
  M(t2, t2, t1)
  sqn(t3, t2, 100)
  M(t2, t3, t2)
  sqn(t2, t2, 50)
  M(t1, t2, t1)
  return t1, t0
end
local function inverse(z)
  local t1, t0 = pow250(z)
  sqn(t1, t1, 5)
  M(t1, t1, t0)
  return t1
end
local function pow2523(z)
  local t1 = pow250(z)
  sqn(t1, t1, 2)
  M(t1, t1, z)
  return t1
end

-- Points in extended coordinates {X, Y, Z, T}; TweetNaCl's unified addition (also right for doubling).
local function add(p, q)
  local a, b, c, d, t, e, f, g, h = gf(), gf(), gf(), gf(), gf(), gf(), gf(), gf(), gf()
  Z(a, p[2], p[1])
  Z(t, q[2], q[1])
  M(a, a, t)
  A(b, p[1], p[2])
  A(t, q[1], q[2])
  M(b, b, t)
  M(c, p[4], q[4])
  M(c, c, D2)
  M(d, p[3], q[3])
  A(d, d, d)
  Z(e, b, a)
  Z(f, d, c)
  A(g, d, c)
  A(h, b, a)
  M(p[1], e, f)
  M(p[2], h, g)
  M(p[3], g, f)
  M(p[4], e, h)
end
local function encode(p)
  local zi, tx, ty = inverse(p[3]), gf(), gf()
  M(tx, p[1], zi)
  M(ty, p[2], zi)
  local r = pack(ty)
  r[32] = r[32] + parity(tx) * 128
  return r
end
-- The negation of the point whose encoding is the 32 bytes given, or nil when they encode no point.
local function decode_negated(bytes)
  local r = { gf(), unpack(bytes), gf(gf1), gf() }
  local num, den, den2, den4, den6, t, chk = gf(), gf(), gf(), gf(), gf(), gf(), gf()
  S(num, r[2])
  M(den, num, D)
  Z(num, num, r[3])
  A(den, r[3], den)
  S(den2, den)
  S(den4, den2)
  M(den6, den4, den2)
  M(t, den6, num)
  M(t, t, den)
  t = pow2523(t)
  M(t, t, num)
  M(t, t, den)
  M(t, t, den)
  M(r[1], t, den)
  S(chk, r[1])
  M(chk, chk, den)
  if neq(chk, num) then M(r[1], r[1], I) end
  S(chk, r[1])
  M(chk, chk, den)
  if neq(chk, num) then return nil end
  if parity(r[1]) == floor(bytes[32] / 128) then Z(r[1], gf0, r[1]) end
  M(r[4], r[1], r[2])
  return r
end

-- Scalars modulo L = 2^252 + 27742317777372353535851937790883648493 (TweetNaCl's modL, on byte values).
local L = { 0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10 }
local function modL(x)
  for i = 64, 33, -1 do
    local carry, j = 0, i - 32
    while j < i - 12 do
      x[j] = x[j] + carry - 16 * x[i] * L[j - (i - 33)]
      carry = floor((x[j] + 128) / 256)
      x[j] = x[j] - carry * 256
      j = j + 1
    end
    x[j] = x[j] + carry
    x[i] = 0
  end
  local carry = 0
  for j = 1, 32 do
    x[j] = x[j] + carry - floor(x[32] / 16) * L[j]
    carry = floor(x[j] / 256)
    x[j] = x[j] % 256
  end
  for j = 1, 32 do x[j] = x[j] - carry * L[j] end
  local r = {}
  for i = 1, 32 do
    if i < 32 then x[i + 1] = x[i + 1] + floor(x[i] / 256) end
    r[i] = x[i] % 256
  end
  return r
end
local function below_L(s)
  for i = 32, 1, -1 do
    if s[i] < L[i] then return true end
    if s[i] > L[i] then return false end
  end
  return false
end
local function bit(s, i) return floor(s[floor(i / 8) + 1] / 2 ^ (i % 8)) % 2 end

local function bytes_to_string(b)
  local parts = {}
  for i = 1, #b do parts[i] = char(b[i]) end
  return table.concat(parts)
end

local BASE = { gf(X), gf(Y), gf(gf1), gf() }
M(BASE[4], X, Y)

-- True only when signature (64 bytes) is an Ed25519 signature of the string message under public_key (32 bytes).
local function verify(public_key, message, signature)
  if type(public_key) ~= "table" or #public_key ~= 32 or type(signature) ~= "table" or #signature ~= 64 then return false end
  local s = {}
  for i = 1, 32 do s[i] = signature[32 + i] end
  if not below_L(s) then return false end
  local negA = decode_negated(public_key)
  if not negA then return false end
  local rbytes = {}
  for i = 1, 32 do rbytes[i] = signature[i] end
  local h = modL(sha512_bytes(bytes_to_string(rbytes) .. bytes_to_string(public_key) .. message))
  -- [s]B + [h](-A), one doubling per bit and one addition where either scalar has its bit set.
  local both = { gf(BASE[1]), gf(BASE[2]), gf(BASE[3]), gf(BASE[4]) }
  add(both, negA)
  local p = { gf(gf0), gf(gf1), gf(gf1), gf(gf0) }
  local started = false
  for i = 255, 0, -1 do
    if started then add(p, p) end
    local bs, bh = bit(s, i), bit(h, i)
    if bs == 1 and bh == 1 then add(p, both); started = true
    elseif bs == 1 then add(p, BASE); started = true
    elseif bh == 1 then add(p, negA); started = true end
  end
  local r = encode(p)
  for i = 1, 32 do if r[i] ~= rbytes[i] then return false end end
  return true
end

return { sha512 = sha512, verify = verify, base64_decode = base64_decode }
`;
