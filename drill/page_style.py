"""The stylesheet of drill's HTML pages (the night report and the season report), inline in
each page so a page can be mailed or opened offline. Its own module so both pages take it from
below: drill/report.py and drill/season/html.py, neither from the other.
"""

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 52rem; color: #1d232a; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ccd; }
table { border-collapse: collapse; width: 100%; } td, th { padding: 0.35rem 0.5rem; border-bottom: 1px solid #e3e6ea; vertical-align: top; text-align: left; }
.num { text-align: right; white-space: nowrap; } .muted { color: #667; } .grade { font-size: 2.2rem; font-weight: 700; }
.timelines { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; } .answer { background: #f4f6f8; padding: 0.75rem; border-left: 4px solid #5b7;}
svg text { font-size: 11px; fill: #445; } code { background: #f0f2f4; padding: 0 0.2rem; }
"""
