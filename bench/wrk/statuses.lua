-- Plain requests (method, path and headers from the command line), counted by status.
local counts = require("counts")

setup = counts.setup
done = counts.report

function response(status)
  counts.count(status)
end
