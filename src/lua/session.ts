/**
 * The live session of a run (contract §18), one Lua chunk shared by the loader (and so api.load_script(), which runs
 * the loader): it defines `keyward_session(base, service, key, hwid, script_id, handler_of, executor)`. It opens a session when
 * the server says the run needs one (the script has `heartbeat`, or the key has `maxSessions`), refuses to go on at
 * SESSION_LIMIT, and heartbeats in the background (task.spawn/task.wait, else spawn/wait). When a heartbeat answers
 * 410 it calls the script's api.on_session_end(reason) if set (handler_of() finds it), else kicks the local player
 * with the sentence, else raises it.
 * Calls go through request/http_request where the executor has one (it gives the status, and never raises on a 410),
 * else game:HttpGet; either way the GET forms, so no JSON has to be written. Lua 5.1, no library needed. Where
 * HttpGet raises on the 410 (hiding the reason), the end still happens, with the reason ENDED.
 */
export const SESSION_LUA = String.raw`
local function keyward_session(base, service, key, hwid, script_id, handler_of, executor)
  local function enc(s)
    return (string.gsub(tostring(s), "[^%w%-_%.~]", function(c) return string.format("%%%02X", string.byte(c)) end))
  end
  local sender = (type(request) == "function" and request) or (type(http_request) == "function" and http_request)
    or (type(syn) == "table" and type(syn.request) == "function" and syn.request) or nil
  local function get(path)
    local url = base .. "/api/v1/public/sessions/" .. enc(service) .. path
    if sender then
      local ok, res = pcall(sender, { Url = url, Method = "GET" })
      if ok and type(res) == "table" then return tostring(res.Body or "") end
      return ""
    end
    local ok, body = pcall(function() return game:HttpGet(url) end)
    if ok then return tostring(body) end
    -- Some executors' HttpGet raises on an error status ("HTTP 410 (Gone)") and the answer's body is lost with it:
    -- the status in the message still says the session ended, though not why.
    if string.find(tostring(body), "410", 1, true) then
      return '{"code":"SESSION_ENDED","reason":"ENDED","error":"Your session has ended"}'
    end
    return ""
  end
  local function field(body, name)
    return string.match(body, '"' .. name .. '"%s*:%s*"([^"]*)"') or string.match(body, '"' .. name .. '"%s*:%s*(%d+)')
  end
  local q = "/open?ifNeeded=1&key=" .. enc(key or "")
  if hwid ~= "" then q = q .. "&hwid=" .. enc(hwid) end
  if script_id then q = q .. "&scriptId=" .. enc(script_id) end
  if executor and executor ~= "" then q = q .. "&executor=" .. enc(executor) end
  local opened = get(q)
  if field(opened, "code") == "SESSION_LIMIT" then
    -- Written as every other refusal is (contract §26): the server's sentence says what to do.
    error("Keyward: SESSION_LIMIT: " .. (field(opened, "error") or "This key is already running on its limit of devices."), 0)
  end
  local id = field(opened, "sessionId")
  -- Refused, not needed, or unreachable: the fetch that follows says what is wrong, if anything.
  if not id then return nil end
  local period = tonumber(field(opened, "heartbeatSeconds")) or 30
  local spawner = (type(task) == "table" and task.spawn) or spawn
  local waiter = (type(task) == "table" and task.wait) or wait
  if type(spawner) ~= "function" or type(waiter) ~= "function" then return id end
  local function ended(reason, sentence)
    local handler = handler_of and handler_of()
    if type(handler) == "function" then
      handler(reason)
      return
    end
    local player
    pcall(function()
      local players = game.Players or game:GetService("Players")
      player = players and players.LocalPlayer
    end)
    if player then
      player:Kick(sentence)
      return
    end
    error(sentence, 0)
  end
  spawner(function()
    while true do
      waiter(period)
      local body = get("/" .. enc(id) .. "/heartbeat")
      if field(body, "code") == "SESSION_ENDED" then
        local reason = field(body, "reason") or "TIMED_OUT"
        ended(reason, field(body, "error") or ("Your session ended (" .. reason .. ")"))
        return
      end
    end
  end)
  return id
end
`;
