"""A course for instructors: release nights, collect saves, grade them by replay, keep a
gradebook and report on the class (`drill course ...`).

Not to be confused with `drill.course`, which names the lesson this game belongs to."""
