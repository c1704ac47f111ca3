-- wrk script for bench/serve.sh: POST /register-apns for 1,000 distinct devices, cycling.
-- Device i (0..999) is "bench-<i>" with APNs token ("%08x" of i) eight times (64 hex digits).
-- Every thread walks all 1,000 devices from its own starting point, so each device is hit as soon
-- as any thread has sent 1,000 requests. Non-200 answers are counted per thread and summed in done().
-- The last line is for bench/serve.sh: "serve-register: requests=N seconds=S non200=N errors=N p50_us=... p99_us=...".

local devices = 1000
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  counter = (id * 997) % devices -- spread the threads' starting points
  non200 = 0
  bodies = {}
  for i = 0, devices - 1 do
    local hex = string.format("%08x", i)
    bodies[i] = string.format('{"device_token": "bench-%d", "apns_token": "%s"}', i, string.rep(hex, 8))
  end
end

function request()
  local body = bodies[counter]
  counter = (counter + 1) % devices
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
  if status ~= 200 then non200 = non200 + 1 end
end

function done(summary, latency, requests)
  local bad = 0
  for _, thread in ipairs(threads) do bad = bad + thread:get("non200") end
  local e = summary.errors
  io.write(string.format(
    "serve-register: requests=%d seconds=%.3f non200=%d errors=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration / 1e6, bad, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
