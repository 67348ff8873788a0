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
