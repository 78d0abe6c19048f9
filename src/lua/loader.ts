import { luaString } from './quote.ts';
import { SESSION_LUA } from './session.ts';
import { EXECUTOR_LUA } from './executor.ts';

/**
 * The loader every loadstring runs. It reads the global `script_key`, takes the HWID from gethwid()
 * when the executor has it (otherwise the executor's own fingerprint header identifies the machine),
 * fetches the script and runs it. Lua 5.1, nothing but game:HttpGet. The key line may be written any way Luarmor's
 * buyers write it (`script_key = "KEY";`, `script_key="KEY"`, `getgenv().script_key = "KEY"`): each sets the global
 * or getgenv()'s field, and both are read.
 */
export function loaderSource(baseUrl: string, scriptId: string, serviceId?: string): string {
  return `-- Keyward loader
local fetch_url = ${luaString(`${baseUrl}/api/v1/vss/fetch/${scriptId}`)}
local env = (type(getgenv) == "function" and getgenv()) or _G
local key = script_key or env.script_key or ""
local hwid = ""
${EXECUTOR_LUA}
-- The executor's own claim (contract §29): counted for the seller, and checked against the script's executor rule.
local executor = keyward_executor()
if type(gethwid) == "function" then
  local ok, value = pcall(gethwid)
  if ok and value ~= nil then hwid = tostring(value) end
end
local function encode(s)
  return (string.gsub(tostring(s), "[^%w%-_%.~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end
-- globals=1: the answer sets Luarmor's LRM_ globals before the script runs (contract §16.3).
local url = fetch_url .. "?globals=1&key=" .. encode(key)
if hwid ~= "" then url = url .. "&hwid=" .. encode(hwid) end
if executor ~= "" then url = url .. "&executor=" .. encode(executor) end
${serviceId === undefined ? '' : sessionStart(baseUrl, scriptId, serviceId)}local source = game:HttpGet(url)
local chunk, problem = loadstring(source)
if not chunk then
  error("Keyward: the script could not be loaded: " .. tostring(problem), 0)
end
return chunk(...)
`;
}

/** The live session before the fetch (contract §18); api.load_script() leaves its api in KEYWARD_API for on_session_end. */
const sessionStart = (baseUrl: string, scriptId: string, serviceId: string) => `${SESSION_LUA}
keyward_session(${luaString(baseUrl)}, ${luaString(serviceId)}, key, hwid, ${luaString(scriptId)}, function()
  local api = env.KEYWARD_API
  return type(api) == "table" and api.on_session_end or nil
end, executor)
`;
