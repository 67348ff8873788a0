"""How attachments are named and encoded for providers (``tooldeck.providers._attachments``)."""

from __future__ import annotations

import base64

from tooldeck import FilePart, ImagePart
from tooldeck.providers._attachments import attachment_name, data_url


def test_an_attachment_is_sized_as_every_other_message_sizes_things():
    report = FilePart(b"x" * 3000, "application/pdf", "report.pdf")
    assert attachment_name(report) == "report.pdf (application/pdf, 2.9 KiB)"
    assert attachment_name(ImagePart(b"x" * 72, "image/png")) == "image (image/png, 72 bytes)"


def test_a_data_url_carries_the_mime_type_and_the_bytes():
    url = data_url(FilePart(b"%PDF-1.4", "application/pdf", "a.pdf"))
    prefix, encoded = url.split(",", 1)
    assert prefix == "data:application/pdf;base64"
    assert base64.b64decode(encoded) == b"%PDF-1.4"


def test_audio_goes_as_audio_where_a_provider_takes_it_and_as_a_note_elsewhere():
    from tooldeck import AudioPart
    from tooldeck.providers._attachments import anthropic_block, mcp_block, openai_chat_part

    wav = AudioPart(b"RIFF0000WAVE", "audio/wav")
    assert openai_chat_part(wav) == {
        "type": "input_audio",
        "input_audio": {"data": base64.b64encode(b"RIFF0000WAVE").decode(), "format": "wav"},
    }
    assert openai_chat_part(AudioPart(b"x", "audio/ogg"))["type"] == "file"
    assert mcp_block("c1", wav) == {
        "type": "audio",
        "data": base64.b64encode(b"RIFF0000WAVE").decode(),
        "mimeType": "audio/wav",
    }
    assert "left out" in anthropic_block(wav)["text"]
    assert attachment_name(wav) == "audio (audio/wav, 12 bytes)"


def test_a_served_text_file_is_an_embedded_text_resource_and_other_files_blobs():
    from tooldeck.providers._attachments import mcp_block

    notes = mcp_block("mcp-1", FilePart(b"a,b\n", "text/csv", "data.csv"))
    assert notes["resource"] == {
        "uri": "tooldeck://calls/mcp-1/data.csv",
        "mimeType": "text/csv",
        "text": "a,b\n",
    }
    binary = mcp_block("mcp-1", FilePart(b"\xff\xfe", "text/plain", None))
    assert binary["resource"]["uri"] == "tooldeck://calls/mcp-1/attachment"
    assert "blob" in binary["resource"]
