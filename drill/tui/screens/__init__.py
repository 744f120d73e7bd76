"""One module per screen: picker, briefing, plan, night, debrief, help, confirm."""
