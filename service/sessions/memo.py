"""The last record this replica read or wrote of each of the most recently used sessions (an LRU).

A move is computed on the remembered record and committed against its (version, tag), which saves the read
when it is still current; a compare-and-set that loses answers the current record instead.
"""

from __future__ import annotations

from collections import OrderedDict

from service.sessions.store import SessionRecord


class RecentRecords:
    """Up to ``size`` sessions' last known records (``size`` 0: none are kept)."""

    def __init__(self, size: int) -> None:
        self._records: OrderedDict[str, SessionRecord] = OrderedDict()
        self._size = size

    def get(self, session_id: str) -> SessionRecord | None:
        return self._records.get(session_id)

    def remember(self, session_id: str, record: SessionRecord) -> None:
        if self._size <= 0:
            return
        records = self._records
        records[session_id] = record
        records.move_to_end(session_id)
        if len(records) > self._size:
            records.popitem(last=False)

    def forget(self, session_id: str) -> None:
        self._records.pop(session_id, None)
