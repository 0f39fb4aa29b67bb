-- wrk script for scripts/bench-http.sh: POSTs ledger transfers between random funded accounts.
--
--   wrk ... -s bench/http/transfers.lua URL -- ACCOUNTS_FILE TOKEN ASSET BATCH [keyed]
--
-- BATCH = 1: one transfer per request to /v1/ledger/transfers (answer 201).
-- BATCH > 1: that many per request to /v1/ledger/transfers/batch (answer 200, one result each).
-- keyed: every request carries a fresh Idempotency-Key (random UUID), as a careful client sends.
-- Every transfer gets a fresh time-ordered id (UUIDv7 layout: the ledger's indexes favour ids that
-- grow with time, as the ledger benchmark's batched workload uses). Amounts are 1 minor unit, so
-- funded accounts never run dry. Refusals are counted: a non-201 single, or a batch result that is
-- not "created"; done() prints them with the latency percentiles as one JSON line.

local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  local accounts_file, token, asset, batch = args[1], args[2], args[3], tonumber(args[4])
  accounts = {}
  for line in io.lines(accounts_file) do
    if #line > 0 then table.insert(accounts, line) end
  end
  assert(#accounts >= 2, "need at least two accounts in " .. accounts_file)
  asset_code = asset
  batch_size = batch
  keyed = args[5] == "keyed"
  path = batch_size > 1 and "/v1/ledger/transfers/batch" or "/v1/ledger/transfers"
  headers = { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }
  math.randomseed(os.time() * 1000 + id)
  refused = 0
  responses = 0
end

local function hex(value, digits)
  return string.format("%0" .. digits .. "x", value)
end

-- A random (version 4) UUID, for Idempotency-Key values.
local function uuid4()
  return hex(math.random(0, 0xffffffff), 8) .. "-" .. hex(math.random(0, 0xffff), 4) .. "-4" .. hex(math.random(0, 0xfff), 3)
    .. "-" .. hex(0x8000 + math.random(0, 0x3fff), 4) .. "-" .. hex(math.random(0, 0xffffff), 6) .. hex(math.random(0, 0xffffff), 6)
end

-- A UUIDv7-shaped id: 48 bits of milliseconds (seconds from os.time, the rest from a counter so ids
-- from one thread keep growing within a second), version 7, variant 10, then random bits.
local function uuid7()
  counter = counter + 1
  local millis = os.time() * 1000 + (counter % 1000)
  local high = math.floor(millis / 65536)
  local low = millis % 65536
  return hex(high, 8) .. "-" .. hex(low, 4) .. "-7" .. hex(math.random(0, 0xfff), 3) .. "-"
    .. hex(0x8000 + math.random(0, 0x3fff), 4) .. "-" .. hex(math.random(0, 0xffffff), 6) .. hex(math.random(0, 0xffffff), 6)
end

local function transfer()
  local debit = math.random(#accounts)
  local credit = math.random(#accounts - 1)
  if credit >= debit then credit = credit + 1 end
  return '{"id":"' .. uuid7() .. '","debit_account_id":"' .. accounts[debit] .. '","credit_account_id":"'
    .. accounts[credit] .. '","amount":"1","asset":"' .. asset_code .. '"}'
end

function request()
  local body
  if batch_size > 1 then
    local items = {}
    for i = 1, batch_size do items[i] = transfer() end
    body = '{"transfers":[' .. table.concat(items, ",") .. "]}"
  else
    body = transfer()
  end
  if keyed then
    local with_key = { ["Idempotency-Key"] = uuid4() }
    for name, value in pairs(headers) do with_key[name] = value end
    return wrk.format("POST", path, with_key, body)
  end
  return wrk.format("POST", path, headers, body)
end

function response(status, headers, body)
  responses = responses + 1
  if batch_size > 1 then
    if status ~= 200 then
      refused = refused + batch_size
    else
      local created = select(2, string.gsub(body, '"status":"created"', ""))
      refused = refused + (batch_size - created)
    end
  elseif status ~= 201 then
    refused = refused + 1
  end
end

function done(summary, latency, requests)
  local refused_total, responses_total = 0, 0
  for _, thread in ipairs(threads) do
    refused_total = refused_total + (thread:get("refused") or 0)
    responses_total = responses_total + (thread:get("responses") or 0)
  end
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"p50_ms":%.3f,"p99_ms":%.3f,"socket_errors":%d,"non_2xx":%d,"refused_transfers":%d,"responses":%d}\n',
    summary.requests, summary.duration, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status, refused_total, responses_total))
end
