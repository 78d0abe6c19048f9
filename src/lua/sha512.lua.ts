/**
 * SHA-512 in pure Lua 5.1, the hash inside Ed25519 (ed25519.lua.ts embeds this text; it expects the locals
 * floor, byte, char and sub in scope). Lua 5.1 has no integers and no bit operations, so each 64-bit word is two
 * 32-bit halves held in doubles: XOR comes from a 256×256 byte table (built once from a 16×16 one), AND from
 * a AND b = (a + b - (a XOR b)) / 2, rotations and shifts from exact division and multiplication by powers of two,
 * additions carry from the low half into the high one. Defines sha512_bytes(msg) (64 byte values) and
 * sha512(msg) (hex). No backslash anywhere, so the text survives the template literal as is.
 */
export const SHA512_LUA = `
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
`;
