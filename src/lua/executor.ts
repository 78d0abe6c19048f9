/**
 * Lua 5.1 that defines `keyward_executor()`: the executor's own name and version (`identifyexecutor()`, else
 * `getexecutorname()`, else ""), as the loader, the library and the session client send it (contract §29). Control
 * characters are dropped and the text is cut to 64 bytes (never inside a UTF-8 character), so the server's limit of
 * 64 printable characters always holds. The name is the buyer's own claim: it labels analytics and lets a script refuse
 * politely, nothing more.
 */
export const EXECUTOR_LUA = String.raw`
local function keyward_executor()
  local identify = (type(identifyexecutor) == "function" and identifyexecutor)
    or (type(getexecutorname) == "function" and getexecutorname) or nil
  if not identify then return "" end
  local ok, name, version = pcall(identify)
  if not ok or name == nil then return "" end
  local text = tostring(name)
  if version ~= nil and tostring(version) ~= "" then text = text .. " " .. tostring(version) end
  text = string.gsub(text, "%c", "")
  text = string.gsub(text, "\194[\128-\159]", "")
  if #text > 64 then
    text = string.sub(text, 1, 64)
    local lead = string.match(text, "()[\192-\255][\128-\191]*$")
    if lead then
      local b = string.byte(text, lead)
      local need = (b >= 240 and 4) or (b >= 224 and 3) or 2
      if #text - lead + 1 < need then text = string.sub(text, 1, lead - 1) end
    end
  end
  return (string.gsub(text, "^%s*(.-)%s*$", "%1"))
end
`;
