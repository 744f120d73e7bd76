"""The Textual front end: screens and widgets over the one engine.

Nothing here decides what happens in the night. The engine does; these modules show its
snapshots, send typed lines to the Session and keep the pacing (pause, speed, holds), which is
not part of the game and is never saved.
"""
