-- wrk script for scripts/bench-ble-sessions.sh: the rail's write steps, as fast as the hub takes them.
--
--   wrk -t N -c N ... -s bench/ble-sessions/steps.lua URL -- TOKENS_FILE ASSET AMOUNT
--
-- Each connection loops create (as its payee) → lock → pay (as its payer, with a fresh
-- Idempotency-Key): the three steps that write, without the unauthenticated resolve, whose
-- per-address rate limit would cap a load that comes from one address. One connection per thread
-- (-t equal to -c), so a thread's Lua state is its connection's flow. TOKENS_FILE has one line per
-- thread: "PAYEE_TOKEN PAYER_TOKEN" (flows.py setup). done() prints one JSON line: steps, flows and
-- errors; the same wrk load tool then drives single transfers, so the two rates compare.

local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  local tokens_file, asset, amount = args[1], args[2], args[3]
  local line_number = 0
  for line in io.lines(tokens_file) do
    line_number = line_number + 1
    if line_number == id then payee, payer = line:match("^(%S+) (%S+)$") end
  end
  assert(payee and payer, "no tokens for thread " .. id .. " in " .. tokens_file)
  create_body = '{"amount":"' .. amount .. '","asset":"' .. asset .. '"}'
  state = "create"
  session_path = nil
  steps, flows, errors, paid_counter = 0, 0, 0, 0
  first_error = ""
  math.randomseed(os.time() * 1000 + id)
end

function request()
  if state == "create" then
    return wrk.format("POST", "/v1/rails/ble-sessions/sessions",
      { ["Authorization"] = "Bearer " .. payee, ["Content-Type"] = "application/json" }, create_body)
  elseif state == "lock" then
    return wrk.format("POST", session_path .. "/lock", { ["Authorization"] = "Bearer " .. payer })
  else
    paid_counter = paid_counter + 1
    local key = string.format("steps-%d-%d-%08x", id, paid_counter, math.random(0, 0x7fffffff))
    return wrk.format("POST", session_path .. "/pay", { ["Authorization"] = "Bearer " .. payer, ["Idempotency-Key"] = key })
  end
end

local function fail(status, body)
  errors = errors + 1
  if first_error == "" then first_error = state .. " " .. status .. " " .. string.sub(body or "", 1, 200) end
  state = "create"  -- start a new flow; a locked session expires by itself
end

function response(status, headers, body)
  if state == "create" then
    local location = headers["Location"] or headers["location"]
    if status ~= 201 or not location then return fail(status, body) end
    session_path = location
    state = "lock"
  elseif state == "lock" then
    if status ~= 200 then return fail(status, body) end
    state = "pay"
  else
    if status ~= 200 or not string.find(body, '"status":"paid"', 1, true) then return fail(status, body) end
    flows = flows + 1
    state = "create"
  end
  steps = steps + 1
end

function done(summary, latency, requests)
  local total_steps, total_flows, total_errors, sample = 0, 0, 0, ""
  for _, thread in ipairs(threads) do
    total_steps = total_steps + thread:get("steps")
    total_flows = total_flows + thread:get("flows")
    total_errors = total_errors + thread:get("errors")
    if sample == "" then sample = thread:get("first_error") end
  end
  sample = string.gsub(sample, '[\\"]', "'")
  io.write(string.format(
    'BENCH_JSON {"steps":%d,"flows":%d,"errors":%d,"socket_errors":%d,"duration_us":%d,"p50_ms":%.3f,"p99_ms":%.3f,"first_error":"%s"}\n',
    total_steps, total_flows, total_errors,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.duration, latency:percentile(50) / 1000, latency:percentile(99) / 1000, sample))
end
