-- 95% anonymous reads (GETs of the paths given, chosen at random) and 5% creates of uniquely
-- named clubs with the admin token. No response() hook, so that wrk need not hand big list
-- bodies to Lua; failures show in wrk's own non-2xx count, and the harness counts the clubs
-- created through /health.
--   wrk -s mix.lua <url> -- <run tag> <admin token> <create path> <read path> [<read path> ...]
local run, create, reads, n = "run", "/", {}, 0
local post_headers = {}
local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  run, create = args[1] or run, args[3] or create
  for i = 4, #args do
    table.insert(reads, args[i])
  end
  for name, value in pairs(wrk.headers) do
    post_headers[name] = value
  end
  post_headers["Content-Type"] = "application/json"
  post_headers["Authorization"] = "Bearer " .. (args[2] or "")
  math.randomseed(id * 7919)
end

function request()
  if math.random() < 0.05 then
    n = n + 1
    local body = string.format('{"name":"Bench %s t%d n%d","subtitle":"Made by the benchmark"}', run, id, n)
    return wrk.format("POST", create, post_headers, body)
  end
  return wrk.format("GET", reads[math.random(#reads)])
end
