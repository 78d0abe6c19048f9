/**
 * What a Roblox executor gives a script, in plain Lua 5.1 / LuaJIT: game:HttpGet and request() (curl through
 * io.popen), gethwid and script_key from the environment, task.spawn/task.wait over coroutines with a scheduler that
 * sleeps in real time, identifyexecutor() ("Standin", "1.0" unless KW_EXECUTOR_NAME / KW_EXECUTOR_VERSION say), and game.Players.LocalPlayer:Kick(message), which prints `KICKED:<message>` and stops the run.
 * A program defines `main` and ends with `run(main, seconds)`: the scheduler runs until the player is kicked, every
 * thread is done, or the seconds pass.
 */
export const ROBLOX_STANDIN = String.raw`
local function sh(s) return "'" .. (string.gsub(s, "'", "'\\''")) .. "'" end
local function now()
  local pipe = io.popen("date +%s.%N")
  local t = tonumber(pipe:read("*a"))
  pipe:close()
  return t
end
local kicked = false
local player = {}
function player:Kick(message)
  kicked = true
  print("KICKED:" .. tostring(message))
  io.stdout:flush()
end
game = { Players = { LocalPlayer = player } }
function game:GetService(name) return self[name] end
function game:HttpGet(url)
  local pipe = io.popen("curl -sS --max-time 20 " .. sh(url))
  local body = pipe:read("*a")
  pipe:close()
  return body
end
-- An executor with only game:HttpGet, which raises on an error status as Roblox's own HTTP calls do.
function only_strict_http_get()
  request, http_request, syn = nil, nil, nil
  function game:HttpGet(url)
    local pipe = io.popen("curl -sS --max-time 20 -w '\n%{http_code}' " .. sh(url))
    local out = pipe:read("*a")
    pipe:close()
    local body, status = string.match(out, "^(.*)\n(%d+)$")
    if not status or tonumber(status) >= 400 then error("HTTP " .. tostring(status) .. " (Gone)") end
    return body
  end
end
function request(options)
  local pipe = io.popen("curl -sS --max-time 20 -X " .. (options.Method or "GET") .. " -w '\\n%{http_code}' " .. sh(options.Url))
  local out = pipe:read("*a")
  pipe:close()
  local body, status = string.match(out, "^(.*)\n(%d+)$")
  return { StatusCode = tonumber(status), Body = body, Success = tonumber(status) ~= nil and tonumber(status) < 300 }
end
script_key = os.getenv("KW_KEY")
gethwid = function() return os.getenv("KW_HWID") end
-- The executor's own name and version, as identifyexecutor() answers them on real executors (contract §29).
function identifyexecutor() return os.getenv("KW_EXECUTOR_NAME") or "Standin", os.getenv("KW_EXECUTOR_VERSION") or "1.0" end

local threads = {}
local function resume(entry)
  local ok, value = coroutine.resume(entry.co, unpack(entry.args or {}))
  entry.args = nil
  if not ok then
    print("ERROR:" .. tostring(value))
    io.stdout:flush()
  elseif coroutine.status(entry.co) == "suspended" then
    entry.at = value or 0
  end
end
task = {}
function task.spawn(fn, ...)
  local entry = { co = coroutine.create(fn), at = 0, args = { ... } }
  threads[#threads + 1] = entry
  resume(entry)
  return entry.co
end
function task.wait(seconds)
  local started = now()
  coroutine.yield(started + (seconds or 0))
  return now() - started
end
function run(main, limit)
  local deadline = now() + limit
  task.spawn(main)
  while not kicked and now() < deadline do
    local next_entry
    for _, entry in ipairs(threads) do
      if coroutine.status(entry.co) == "suspended" and (not next_entry or entry.at < next_entry.at) then next_entry = entry end
    end
    if not next_entry then break end
    local wake = math.min(next_entry.at, deadline)
    local delay = wake - now()
    if delay > 0 then os.execute("sleep " .. string.format("%.3f", delay)) end
    if now() >= next_entry.at then resume(next_entry) end
  end
  print("DONE")
end
`;
