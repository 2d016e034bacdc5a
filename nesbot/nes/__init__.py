"""The console side: the ROM, the nes-py emulator (the only module that imports nes-py),
where its step ends in the game's frame, the RAM map, the menus, and FCEUX movies."""
