--[[
  Shared by grant-decide-1.lua and grant-consume-1.lua, pasted where a script says
  `-- #include grant-expiry` (see loadScriptDir in @hitl/store).

  expireIfLate(grant, now, expiresAt): when `now` (epoch ms) is past `expiresAt`, sets the grant's
  state to 'expired' and returns true (the caller then answers {-4}); otherwise returns false.
]]
local function expireIfLate(grant, now, expiresAt)
  if tonumber(now) > tonumber(expiresAt) then
    redis.call('HSET', grant, 'state', 'expired')
    return true
  end
  return false
end
