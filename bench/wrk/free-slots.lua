-- The club list's first page computed on every request, never from the list's cache:
--   free-slots.lua free   GET /api/clubs/?page=1&free=<three slots that differ on every request>
--   free-slots.lua plain  GET /api/clubs/?page=1&n=<a new number each time> (n names nothing the list reads)
local counts = require("counts")

setup = counts.setup
done = counts.report

local days = { "mon", "tue", "wed", "thu", "fri", "sat", "sun" }
local mode = "free"
local n = 0

function init(args)
  mode = args[1] or "free"
  -- Each thread its own numbers (setup gave it its id), so that no two ask the same URL.
  n = (id or 1) * 1000003
end

local function slot(i)
  -- Periods of 600, 7 and 5 requests: about 21,000 different slots before one repeats.
  local start = 8 * 60 + (n * 7 + i * 131) % 600
  local finish = math.min(start + 120 + ((n + i) % 5) * 30, 24 * 60)
  return string.format("%s+%02d:%02d-%02d:%02d", days[((n + i * 3) % 7) + 1],
    math.floor(start / 60), start % 60, math.floor(finish / 60), finish % 60)
end

request = function()
  n = n + 1
  if mode == "plain" then
    return wrk.format("GET", "/api/clubs/?page=1&n=" .. n)
  end
  return wrk.format("GET", "/api/clubs/?page=1&free=" .. slot(0) .. "," .. slot(1) .. "," .. slot(2) .. "&n=" .. n)
end

function response(status)
  counts.count(status)
end
