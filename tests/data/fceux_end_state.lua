-- Run by tests/fceux.py inside FCEUX: play the movie given with --playmov to its last frame,
-- then write what the game shows in RAM to the file named by NESBOT_FCEUX_OUT, one
-- "key=value" a field, and quit. (Waiting for movie.mode() to leave "playback" would run
-- one frame more, with no input.) Lines and score are BCD in RAM ($70-$71, $73-$75, little-endian);
-- the piece is its orientation ID ($62), the column its origin's ($60), the next piece its
-- spawn orientation ($BF). With NESBOT_FCEUX_SHOT set, FCEUX's picture of the last frame is
-- saved there too (a PNG of 256 x 224, FCEUX's palette), taken before that frame runs, with
-- the next piece RAM held then (shot_next): where the last frame spawns a piece, the
-- picture's preview still shows the piece that spawns.
-- NESBOT_FCEUX_CHECKS, a comma-separated list of frame counts, adds a line
-- "check=N lines=... score=..." for each, read once FCEUX has run N frames: past the
-- movie's last frame FCEUX runs on with no buttons, and the end state is still the one read
-- at the movie's last frame. NESBOT_FCEUX_STOP, a frame count before the movie's last
-- frame, ends the run there instead: the end state is read there.
local function bcd(byte) return math.floor(byte / 16) * 10 + byte % 16 end
local function state()
  return string.format(
    "lines=%d score=%d level=%d play_state=%d game_mode=%d frame_counter=%d piece=%d column=%d next=%d",
    bcd(memory.readbyte(0x70)) + 100 * bcd(memory.readbyte(0x71)),
    bcd(memory.readbyte(0x73)) + 100 * bcd(memory.readbyte(0x74)) + 10000 * bcd(memory.readbyte(0x75)),
    memory.readbyte(0x64), memory.readbyte(0x68), memory.readbyte(0xC0), memory.readbyte(0xB1),
    memory.readbyte(0x62), memory.readbyte(0x60), memory.readbyte(0xBF))
end
local shot = os.getenv("NESBOT_FCEUX_SHOT")
local finish = tonumber(os.getenv("NESBOT_FCEUX_STOP") or "") or movie.length()
local checks, last = {}, finish
for frame in string.gmatch(os.getenv("NESBOT_FCEUX_CHECKS") or "", "%d+") do
  checks[tonumber(frame)] = true
  last = math.max(last, tonumber(frame))
end
local lines = {}
local shot_next
emu.speedmode("maximum")
while true do
  local frame = emu.framecount()
  if frame == finish then
    table.insert(lines, 1, string.format("frames=%d %s", frame, state()))
  end
  if checks[frame] then table.insert(lines, string.format("check=%d %s", frame, state())) end
  if frame >= last then break end
  if shot and frame == finish - 1 then
    gui.savescreenshotas(shot)
    shot_next = memory.readbyte(0xBF)
  end
  emu.frameadvance()
end
local out = io.open(os.getenv("NESBOT_FCEUX_OUT"), "w")
out:write(table.concat(lines, "\n") .. "\n")
if shot_next then out:write(string.format("shot_next=%d\n", shot_next)) end
out:close()
-- FCEUX then crashes on its way out (status 139), after the file is written.
os.exit(0)
