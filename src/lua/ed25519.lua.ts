import { SHA512_LUA } from './sha512.lua.ts';

/**
 * Ed25519 signature verification in pure Lua 5.1 (contract §13.1), for the Lua library's signed checks.
 * Executors run Lua 5.1 (or Luau) with no C modules and no bit library, and Lua 5.1's numbers are doubles, so:
 * - SHA-512 is sha512.lua.ts.
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

${SHA512_LUA}

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
