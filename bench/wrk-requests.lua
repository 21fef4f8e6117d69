-- wrk script of bench/wrk-load.ts. Each thread cycles through the raw HTTP requests of the file
-- named by WRK_REQUESTS (records separated by NUL bytes). At the end it writes one JSON line of
-- counts and wrk's own CPU time, then the latency histogram as "microseconds count" lines.
local requests = {}
local count = 0
local at = 0

function init(args)
  local file = assert(io.open(os.getenv("WRK_REQUESTS"), "rb"))
  local data = file:read("*a")
  file:close()
  for record in data:gmatch("([^%z]+)") do
    count = count + 1
    requests[count] = record
  end
end

function request()
  at = at % count + 1
  return requests[at]
end

-- utime and stime of /proc/self/stat (fields 14 and 15), in clock ticks: every thread of wrk.
local function cpu_ticks()
  local file = io.open("/proc/self/stat", "r")
  if not file then return -1 end
  local line = file:read("*l")
  file:close()
  local fields = {}
  for field in line:match("%) (.*)"):gmatch("%S+") do fields[#fields + 1] = field end
  return tonumber(fields[12]) + tonumber(fields[13])
end

function done(summary, latency, _)
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"statusErrors":%d,"socketErrors":%d,"timeouts":%d,"cpuTicks":%d}\n',
    summary.requests, summary.duration, errors.status, errors.connect + errors.read + errors.write,
    errors.timeout, cpu_ticks()))
  for i = 1, #latency do
    local value, n = latency(i)
    io.write(value, " ", n, "\n")
  end
end
