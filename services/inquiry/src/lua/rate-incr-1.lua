--[[
  Spends points of one key's budget in its fixed window (the shared rate limit's step when a node
  asks Redis; a refund is negative points).

  Input:
    KEYS[1] the window   hitl:rate:<key>   hash {count, end} (PEXPIRE the window, set when it starts)

    ARGV[1] now (epoch ms, the node's clock)
    ARGV[2] points to add (negative: a refund)
    ARGV[3] the window's length (ms)

  Output:
    {count, end}  the window's count after this call, and when it ends (epoch ms, the same clock);
                  {0, now} for a refund when no window is open
]]
-- #include rate-spend

return spend(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
