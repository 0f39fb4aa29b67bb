-- wrk script for scripts/bench-localchain.sh: the cheapest JSON-RPC call, eth_chainId, one per
-- request. It costs what every call to the endpoint costs (HTTP, the chain's lookup, parsing the
-- call, writing the answer) and nothing of its own, so its rate is the most single calls of any
-- kind can reach through this endpoint on this machine.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'

function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"result"', 1, true) then
    io.write("unexpected answer: " .. status .. " " .. string.sub(body, 1, 200) .. "\n")
    wrk.thread:stop()
  end
end
