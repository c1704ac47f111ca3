-- wrk script for bench/serve.sh: POST /api/v1/notifications/send, one connection, one request at a time.
-- Counts answers that are not 200 or do not report the one device as sent.
-- The last line is for bench/serve.sh: "serve-send: requests=N seconds=S bad=N errors=N p50_us=... p99_us=...".

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  bad = 0
  wrk.method = "POST"
  wrk.body = '{"title":"bench","body":"hello"}'
  wrk.headers["Content-Type"] = "application/json"
end

function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"sent":1', 1, true) then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("bad") end
  local e = summary.errors
  io.write(string.format(
    "serve-send: requests=%d seconds=%.3f bad=%d errors=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration / 1e6, total, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
