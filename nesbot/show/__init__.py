"""What a person sees: whole frames from nes-py's torn screens, the overlay and what it
says, the window, the NES's own pace, and videos."""
