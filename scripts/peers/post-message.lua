-- wrk script for scripts/bench: each request posts a message to one of the chats
-- named in TAILOR_CHATS (comma-separated ids), in turn, as TAILOR_TOKEN's user.
local chats = {}
local counter = 0
local token = os.getenv("TAILOR_TOKEN")

init = function(args)
    for id in string.gmatch(os.getenv("TAILOR_CHATS"), "[^,]+") do
        table.insert(chats, id)
    end
end

request = function()
    counter = counter + 1
    local chat = chats[(counter % #chats) + 1]
    local body = '{"text":"bench message ' .. counter .. '"}'
    return wrk.format("POST", "/api/chats/" .. chat .. "/messages",
        { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token }, body)
end
