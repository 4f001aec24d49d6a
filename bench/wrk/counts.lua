-- Counts answers by HTTP status in each wrk thread, and prints the totals when the run is done:
-- one "status <code> <count>" line each, which bench/wrk.ts reads.
local M = {}
local threads = {}

-- Per thread (each thread loads the scripts into its own Lua state).
statuses = {}

-- Runs in the main state, once per thread: numbers the threads 1, 2, ...
function M.setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function M.count(status)
  statuses[status] = (statuses[status] or 0) + 1
end

function M.report()
  local total = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do
      total[status] = (total[status] or 0) + n
    end
  end
  for status, n in pairs(total) do
    io.write(string.format("status %d %d\n", status, n))
  end
end

return M
