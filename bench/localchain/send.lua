-- wrk script for scripts/bench-localchain.sh: sends the pre-signed transactions through JSON-RPC,
-- each exactly once.
--
--   wrk -t N -c N -d LIMIT -s bench/localchain/send.lua RPC_URL -- DIR BATCH DONE_DIR N
--
-- One connection per thread (-t equal to -c), so a thread's Lua state is its connection. Thread i
-- owns the senders whose number is i - 1 modulo N (DIR/raw.txt: "SENDER<TAB>RAW" lines, in nonce
-- order) and sends their transactions in that order: one eth_sendRawTransaction per request
-- (BATCH 1) or BATCH calls per JSON-RPC batch request. Every body is built in init(), before the
-- first request. A thread that has its last answer stops and leaves an empty file in DONE_DIR; the
-- caller interrupts wrk (SIGINT) once all N are there, and done() prints one line:
-- "BENCH_JSON {...}" with requests, transactions, accepted, errors, seconds (the first request of
-- any thread to the last answer of any thread, CLOCK_MONOTONIC through LuaJIT's FFI), p50/p99 of a
-- request (ms) and the first error.

local ffi = require("ffi")
ffi.cdef [[
  struct bench_timespec { long tv_sec; long tv_nsec; };
  int clock_gettime(int clock, struct bench_timespec *time);
]]
local CLOCK_MONOTONIC = 1
local timespec = ffi.new("struct bench_timespec")
local function now()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
  return tonumber(timespec.tv_sec) + tonumber(timespec.tv_nsec) / 1e9
end

local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

local function call(raw, number)
  return '{"jsonrpc":"2.0","id":' .. number .. ',"method":"eth_sendRawTransaction","params":["' .. raw .. '"]}'
end

function init(args)
  local directory, batch, threads_total = args[1], tonumber(args[2]), tonumber(args[4])
  done_directory = args[3]
  local mine = {}
  for line in io.lines(directory .. "/raw.txt") do
    local sender, raw = line:match("^(%d+)\t(%S+)$")
    if sender and tonumber(sender) % threads_total == id - 1 then table.insert(mine, raw) end
  end
  bodies = {}
  for start = 1, #mine, batch do
    if batch == 1 then
      table.insert(bodies, call(mine[start], 1))
    else
      local calls = {}
      for number = start, math.min(start + batch - 1, #mine) do table.insert(calls, call(mine[number], number - start)) end
      table.insert(bodies, "[" .. table.concat(calls, ",") .. "]")
    end
  end
  transactions = #mine
  assert(#bodies > 0, "thread " .. id .. " owns no transactions: use fewer connections than senders")
  answered, accepted, errors = 0, 0, 0
  first_error, first_sent, last_answer = "", 0, 0
  headers = { ["Content-Type"] = "application/json" }
  -- wrk 4.1 calls the first thread's request() once right after its init(), on the main thread,
  -- to check whether requests can be pipelined; that call sends nothing and must not start the clock.
  checking_request = id == 1
end

-- A connection has one request in flight, so the next body is the one after the last answered.
function request()
  if checking_request then
    checking_request = false
  elseif first_sent == 0 then
    first_sent = now()
  end
  return wrk.format("POST", nil, headers, bodies[math.min(answered + 1, #bodies)])
end

local function count(pattern, body)
  local found, position = 0, 1
  while true do
    local at = string.find(body, pattern, position, true)
    if not at then return found end
    found, position = found + 1, at + #pattern
  end
end

function response(status, headers, body)
  answered = answered + 1
  local results, failures = count('"result":', body), count('"error":', body)
  accepted, errors = accepted + results, errors + failures
  if status ~= 200 then errors = errors + 1 end
  if (failures > 0 or status ~= 200) and first_error == "" then first_error = status .. " " .. string.sub(body, 1, 200) end
  if answered == #bodies then
    last_answer = now()
    io.open(done_directory .. "/" .. id, "w"):close()
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local totals = { requests = 0, transactions = 0, accepted = 0, errors = 0 }
  local first, last, sample = math.huge, 0, ""
  for _, thread in ipairs(threads) do
    totals.requests = totals.requests + thread:get("answered")
    totals.transactions = totals.transactions + thread:get("transactions")
    totals.accepted = totals.accepted + thread:get("accepted")
    totals.errors = totals.errors + thread:get("errors")
    first = math.min(first, thread:get("first_sent"))
    last = math.max(last, thread:get("last_answer"))
    if sample == "" then sample = thread:get("first_error") end
  end
  sample = string.gsub(sample, '[\\"]', "'")
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"transactions":%d,"accepted":%d,"errors":%d,"socket_errors":%d,"seconds":%.4f,"p50_ms":%.2f,"p99_ms":%.2f,"first_error":"%s"}\n',
    totals.requests, totals.transactions, totals.accepted, totals.errors,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    last - first, latency:percentile(50) / 1000, latency:percentile(99) / 1000, sample))
end
