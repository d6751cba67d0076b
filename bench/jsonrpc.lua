-- wrk script: POST one JSON-RPC request, given as the first script argument, on every request.
function init(args)
   wrk.method = "POST"
   wrk.headers["Content-Type"] = "application/json"
   wrk.body = args[1]
end
