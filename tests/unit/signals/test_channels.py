"""The file channel and the signal document both external channels read (the kafka channel against a broker:
tests/integration/signals/test_channels.py)."""

from __future__ import annotations

import json

import pytest

from connector.signals.channels import FileChannel, SignalQueue, parse_signal_json


def test_a_signal_document_keeps_data_as_json_text():
    record = parse_signal_json('{"id": "s1", "type": "execute-snapshot", "data": {"data-collections": ["a.b"]}}',
                               "file")
    assert (record.id, record.type, record.channel) == ("s1", "execute-snapshot", "file")
    assert json.loads(record.data) == {"data-collections": ["a.b"]}
    assert parse_signal_json('{"id": "s2", "type": "pause-snapshot"}', "kafka").data is None


@pytest.mark.parametrize("text", ['[1, 2]', '{"type": "log"}', '{"id": 7, "type": "log"}', 'not json'])
def test_what_is_not_a_signal_document_is_refused(text):
    with pytest.raises(ValueError):
        parse_signal_json(text, "file")


def test_the_file_channel_reads_every_line_once_and_skips_bad_ones(tmp_path, caplog):
    path = tmp_path / "signals.txt"
    channel = FileChannel(path)
    assert channel.read() == []  # no file yet
    path.write_text('{"id": "a", "type": "log", "data": {"message": "hi"}}\n\n{broken\n'
                    '{"id": "b", "type": "pause-snapshot"}\n', encoding="utf-8")
    assert [r.id for r in channel.read()] == ["a", "b"]
    assert "Skipped signal due to an error '{broken'" in caplog.text
    assert path.read_text(encoding="utf-8") == ""
    assert channel.read() == []


def test_the_queue_hands_over_in_order_once():
    queue = SignalQueue()
    assert not queue
    queue.put([parse_signal_json('{"id": "1", "type": "log"}', "kafka")])
    queue.put([parse_signal_json('{"id": "2", "type": "log"}', "kafka")])
    assert queue and [r.id for r in queue.take()] == ["1", "2"] and not queue
