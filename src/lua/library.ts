import { ED25519_LUA } from './ed25519.lua.ts';
import { luaString } from './quote.ts';
import { EXECUTOR_LUA } from './executor.ts';

/**
 * The Lua library sellers load to check a key before running their script (Luarmor's convention):
 *   local api = loadstring(game:HttpGet(BASE .. "/api/v1/lua/library.lua"))()
 *   api.script_id = "<script id>"
 *   local status = api.check_key(script_key)   -- { code, message, data }
 *   if status.code == "KEY_VALID" then api.load_script() end
 *   if status.code == "KEY_INCORRECT" then print("Get a key: " .. (api.get_key_link() or "ask the seller")) end
 * check_key never raises: a refused key, an unknown script or a network failure all come back as a code.
 * Lua 5.1 with only game:HttpGet (and gethwid when present), so it carries its own small JSON decoder.
 * With api.public_key set, check_key asks for a signed answer (v2, contract §22) and refuses one it cannot verify (contract §13.1;
 * the pure-Lua verifier is ed25519.lua.ts, loaded only then).
 */
export function librarySource(baseUrl: string): string {
  return `-- Keyward Lua library
local api = { script_id = nil, base_url = ${luaString(baseUrl)} }

local json = {}
do
  local escapes = { ['"'] = '"', ["\\\\"] = "\\\\", ["/"] = "/", b = "\\b", f = "\\f", n = "\\n", r = "\\r", t = "\\t" }
  local function skip(s, i)
    local _, e = string.find(s, "^[ \\n\\r\\t]*", i)
    return e + 1
  end
  local function utf8(cp)
    if cp < 0x80 then return string.char(cp) end
    if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 0x40), 0x80 + cp % 0x40) end
    if cp < 0x10000 then
      return string.char(0xE0 + math.floor(cp / 0x1000), 0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
    end
    return string.char(0xF0 + math.floor(cp / 0x40000), 0x80 + math.floor(cp / 0x1000) % 0x40,
      0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
  end
  local value
  local function str(s, i)
    local out, j = {}, i + 1
    while true do
      local c = string.sub(s, j, j)
      if c == "" then error("unterminated string") end
      if c == '"' then return table.concat(out), j + 1 end
      if c == "\\\\" then
        local n = string.sub(s, j + 1, j + 1)
        if n == "u" then
          local cp = tonumber(string.sub(s, j + 2, j + 5), 16)
          if not cp then error("bad escape") end
          j = j + 6
          if cp >= 0xD800 and cp <= 0xDBFF and string.sub(s, j, j + 1) == "\\\\u" then
            local low = tonumber(string.sub(s, j + 2, j + 5), 16)
            if low and low >= 0xDC00 and low <= 0xDFFF then
              cp = 0x10000 + (cp - 0xD800) * 0x400 + (low - 0xDC00)
              j = j + 6
            end
          end
          out[#out + 1] = utf8(cp)
        else
          if not escapes[n] then error("bad escape") end
          out[#out + 1] = escapes[n]
          j = j + 2
        end
      else
        out[#out + 1] = c
        j = j + 1
      end
    end
  end
  function value(s, i)
    i = skip(s, i)
    local c = string.sub(s, i, i)
    if c == "{" then
      local obj = {}
      i = skip(s, i + 1)
      if string.sub(s, i, i) == "}" then return obj, i + 1 end
      while true do
        if string.sub(s, i, i) ~= '"' then error("expected a key") end
        local k
        k, i = str(s, i)
        i = skip(s, i)
        if string.sub(s, i, i) ~= ":" then error("expected ':'") end
        obj[k], i = value(s, i + 1)
        i = skip(s, i)
        local d = string.sub(s, i, i)
        if d == "}" then return obj, i + 1 end
        if d ~= "," then error("expected ',' or '}'") end
        i = skip(s, i + 1)
      end
    elseif c == "[" then
      local arr = {}
      i = skip(s, i + 1)
      if string.sub(s, i, i) == "]" then return arr, i + 1 end
      while true do
        arr[#arr + 1], i = value(s, i)
        i = skip(s, i)
        local d = string.sub(s, i, i)
        if d == "]" then return arr, i + 1 end
        if d ~= "," then error("expected ',' or ']'") end
        i = i + 1
      end
    elseif c == '"' then
      return str(s, i)
    elseif string.sub(s, i, i + 3) == "true" then
      return true, i + 4
    elseif string.sub(s, i, i + 4) == "false" then
      return false, i + 5
    elseif string.sub(s, i, i + 3) == "null" then
      return nil, i + 4
    else
      local num = string.match(s, "^-?%d+%.?%d*[eE]?[-+]?%d*", i)
      if not num or num == "" then error("unexpected character at " .. i) end
      return tonumber(num), i + #num
    end
  end
  function json.decode(s)
    local result, i = value(s, 1)
    if skip(s, i) <= #s then error("trailing data") end
    return result
  end
end
api.json = json

local function encode(s)
  return (string.gsub(tostring(s), "[^%w%-_%.~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

local function hwid()
  if type(gethwid) == "function" then
    local ok, value = pcall(gethwid)
    if ok and value ~= nil then return tostring(value) end
  end
  return ""
end

${EXECUTOR_LUA}
-- The executor's own claim (contract §29): counted for the seller, and checked against the script's executor rule.
local executor = keyward_executor()
api.executor = executor

local function query(key)
  local q = "?key=" .. encode(key or "")
  local h = hwid()
  if h ~= "" then q = q .. "&hwid=" .. encode(h) end
  if executor ~= "" then q = q .. "&executor=" .. encode(executor) end
  return q
end

-- Signed answers (contract §13.1) ----------------------------------------------------------------------
local load_crypto = function()
${ED25519_LUA}
end
local crypto
local NONCE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
local MAX_CLOCK_SKEW_S = 300
local nonce_seeded = false
local function new_nonce()
  if not nonce_seeded then
    -- Plain Lua 5.1 starts every run on the same sequence: a predictable nonce would let an old answer be replayed.
    local address = tonumber(string.match(tostring({}), "(%x%x%x%x%x%x)$") or "0", 16) or 0
    pcall(math.randomseed, (os.time() + math.floor((os.clock() * 1000000) % 1000000) + address) % 2147483647)
    nonce_seeded = true
  end
  local out = {}
  for i = 1, 32 do
    local n = math.random(1, #NONCE_CHARS)
    out[i] = string.sub(NONCE_CHARS, n, n)
  end
  return table.concat(out)
end
local function signature_holds(data, key, sent_hwid, nonce)
  if type(data.signature) ~= "string" or type(data.serverTime) ~= "number" or type(data.serviceId) ~= "string"
    or type(data.code) ~= "string" or type(data.valid) ~= "boolean" then
    return false
  end
  if type(data.isPremium) ~= "boolean" then return false end
  if math.abs(data.serverTime / 1000 - os.time()) > MAX_CLOCK_SKEW_S then return false end
  local expires = data.expiresAt
  if expires ~= nil and type(expires) ~= "string" then return false end
  crypto = crypto or load_crypto()
  local public_key = crypto.base64_decode(api.public_key)
  local signature = crypto.base64_decode(data.signature)
  if not public_key or #public_key ~= 32 or not signature or #signature ~= 64 then return false end
  -- keyward-validate-v2 (contract §22): isPremium is covered, every field percent-encoded (RFC 3986, as encode()
  -- does), and the HWID is the one this script sent; never the one the answer reports, which a proxy could rewrite.
  local fields = { "keyward-validate-v2", data.serviceId, tostring(key or ""), sent_hwid, nonce, data.code,
    data.valid and "true" or "false", data.isPremium and "true" or "false", expires or "",
    string.format("%.0f", data.serverTime) }
  for i = 1, #fields do fields[i] = encode(fields[i]) end
  return crypto.verify(public_key, table.concat(fields, "|"), signature)
end

function api.check_key(key)
  if type(api.script_id) ~= "string" or api.script_id == "" then
    return { code = "SCRIPT_ID_REQUIRED", message = "Set api.script_id before calling check_key", data = nil }
  end
  local signed = type(api.public_key) == "string" and api.public_key ~= ""
  local nonce = signed and new_nonce() or nil
  -- Without gethwid the HWID travels only in the executor's fingerprint header, which this script cannot read: the
  -- signature then covers no HWID, and the answer says so (hwid_protected = false; docs/signed-checks.md).
  local sent_hwid = hwid()
  local hwid_protected = signed and sent_hwid ~= ""
  local ok, body = pcall(function()
    local url = api.base_url .. "/api/v1/lua/check/" .. encode(api.script_id) .. query(key)
    if nonce then url = url .. "&nonce=" .. nonce .. "&sig=2" end
    return game:HttpGet(url)
  end)
  if not ok then
    return { code = "NETWORK_ERROR", message = tostring(body), data = nil }
  end
  local decoded_ok, answer = pcall(json.decode, body)
  if not decoded_ok or type(answer) ~= "table" then
    return { code = "INVALID_RESPONSE", message = "The server's answer could not be read", data = nil }
  end
  if answer.success and type(answer.data) == "table" then
    if nonce then
      local checked, holds = pcall(signature_holds, answer.data, key, sent_hwid, nonce)
      if not checked or not holds then
        return { code = "SIGNATURE_INVALID", message = "The answer is not signed by this service's key, or is stale", data = nil }
      end
    end
    api.last_key = key
    return { code = answer.data.code, message = answer.data.message, data = answer.data, hwid_protected = hwid_protected }
  end
  -- An error answer is never signed: with signed checks on, it may refuse but never pass a key.
  if nonce and (answer.code == "KEY_VALID" or answer.code == "KEYLESS") then
    return { code = "SIGNATURE_INVALID", message = "The answer is not signed by this service's key, or is stale", data = nil }
  end
  return { code = answer.code or "ERROR", message = answer.error or "The key could not be checked", data = nil }
end

-- The get-key page of the script's service, for a script to show when check_key answers KEY_INCORRECT.
-- Returns the address, or nil and a message (key system off, unknown script, network failure).
function api.get_key_link()
  if type(api.script_id) ~= "string" or api.script_id == "" then
    return nil, "Set api.script_id before calling get_key_link"
  end
  local ok, body = pcall(function()
    return game:HttpGet(api.base_url .. "/api/v1/lua/key-link/" .. encode(api.script_id))
  end)
  if not ok then return nil, tostring(body) end
  local decoded_ok, answer = pcall(json.decode, body)
  if not decoded_ok or type(answer) ~= "table" then return nil, "The server's answer could not be read" end
  if answer.success and type(answer.data) == "table" then
    if type(answer.data.link) == "string" then return answer.data.link end
    return nil, "The key system is turned off"
  end
  return nil, answer.error or "The key link could not be read"
end

function api.load_script(key)
  key = key or api.last_key or script_key or ""
  local env = (type(getgenv) == "function" and getgenv()) or _G
  env.script_key = key
  script_key = key
  -- Through the script's loader, which opens the live session when the run needs one (contract §18) and calls
  -- api.on_session_end(reason), found here, when it ends.
  env.KEYWARD_API = api
  local source = game:HttpGet(api.base_url .. "/api/v1/vss/loader/" .. encode(api.script_id or ""))
  local chunk, problem = loadstring(source)
  if not chunk then error("Keyward: the script could not be loaded: " .. tostring(problem), 0) end
  return chunk()
end

-- The service's variables for this key: a table of name -> string, empty unless the key is valid now
-- (the same check as check_key). The second value is the check's code, or why nothing could be read.
function api.variables(key)
  key = key or api.last_key or script_key or ""
  if type(api.script_id) ~= "string" or api.script_id == "" then return {}, "SCRIPT_ID_REQUIRED" end
  local ok, body = pcall(function()
    return game:HttpGet(api.base_url .. "/api/v1/lua/variables/" .. encode(api.script_id) .. query(key))
  end)
  if not ok then return {}, "NETWORK_ERROR" end
  local decoded_ok, answer = pcall(json.decode, body)
  if not decoded_ok or type(answer) ~= "table" then return {}, "INVALID_RESPONSE" end
  if answer.success and type(answer.data) == "table" then
    return type(answer.data.variables) == "table" and answer.data.variables or {}, answer.data.code
  end
  return {}, answer.code or "ERROR"
end

local function json_string(s)
  return '"' .. (string.gsub(tostring(s), '[%c"\\\\]', function(c)
    if c == '"' then return '\\\\"' end
    if c == "\\\\" then return "\\\\\\\\" end
    return string.format("\\\\u%04x", string.byte(c))
  end)) .. '"'
end

local function http_post()
  local candidates = {
    rawget(_G, "request"), rawget(_G, "http_request"),
    type(rawget(_G, "syn")) == "table" and syn.request or nil,
    type(rawget(_G, "http")) == "table" and http.request or nil,
    type(rawget(_G, "fluxus")) == "table" and fluxus.request or nil,
  }
  for i = 1, 5 do
    if type(candidates[i]) == "function" then return candidates[i] end
  end
  return nil
end

-- Posts content (1-2000 characters) to the seller's webhook through the server, which holds its address
-- and turns mentions off; only for a valid key, at most 10 a minute per key. Needs the executor's POST
-- function (request, http_request or syn.request). Returns true, or false and a code
-- (KEY_REFUSED: the validation code follows as a third value; RATE_LIMITED; WEBHOOK_DISABLED; ...).
function api.send_webhook(content, username, key)
  key = key or api.last_key or script_key or ""
  if type(api.script_id) ~= "string" or api.script_id == "" then return false, "SCRIPT_ID_REQUIRED" end
  local post = http_post()
  if not post then return false, "NO_HTTP_REQUEST", "This executor has no request function for POST" end
  local fields = { '"key":' .. json_string(key), '"content":' .. json_string(content or "") }
  local h = hwid()
  if h ~= "" then fields[#fields + 1] = '"hwid":' .. json_string(h) end
  if username ~= nil then fields[#fields + 1] = '"username":' .. json_string(username) end
  local ok, response = pcall(post, {
    Url = api.base_url .. "/api/v1/lua/relay/" .. encode(api.script_id),
    Method = "POST",
    Headers = { ["Content-Type"] = "application/json" },
    Body = "{" .. table.concat(fields, ",") .. "}",
  })
  if not ok or type(response) ~= "table" then return false, "NETWORK_ERROR", tostring(response) end
  local decoded_ok, answer = pcall(json.decode, response.Body or "")
  if not decoded_ok or type(answer) ~= "table" then return false, "INVALID_RESPONSE" end
  if answer.success then return true end
  return false, answer.code or "ERROR", answer.reason or answer.error
end

return api
`;
}
