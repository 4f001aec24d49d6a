-- POSTs a new club per request, named uniquely by run, thread and a per-thread counter.
--   wrk -s create.lua <url> -- <run tag>
local counts = require("counts")
local run, n = "run", 0

setup = counts.setup
done = counts.report

function init(args)
  run = args[1] or run
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  n = n + 1
  local body = string.format('{"name":"Bench %s t%d n%d","subtitle":"Made by the benchmark"}', run, id, n)
  return wrk.format(nil, nil, nil, body)
end

function response(status)
  counts.count(status)
end
