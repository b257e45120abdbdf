"""The embedded default's broker: kombu's filesystem transport, made safe for a worker to consume.

kombu's transport writes a message by opening its file under its final name and then writing it,
and a worker takes every `*.<queue>.msg` file it sees without waiting for the writer: a message
caught between the two is an empty file, and its JSONDecodeError, raised in the consumer's loop,
ended the urgent worker. Here:

- a message is written under a temporary name and renamed into place, so a worker only ever sees
  whole messages;
- a file that still cannot be read as a message (empty, truncated, not JSON, not a kombu envelope)
  is parked: moved to the `parked_folder` transport option (var/broker/parked), logged once with
  its name, and the worker goes on with the next message. The work it owed is still in the outbox,
  which sends it again (docs/design/outbox.md).

CELERY_BROKER_TRANSPORT names this transport for filesystem:// (pit/settings/components/celery.py).
"""

import contextlib
import logging
import os
import shutil
import tempfile
import uuid
from queue import Empty
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

logger = logging.getLogger(__name__)


def message_envelope(payload: bytes) -> dict[str, Any] | None:
    """The kombu envelope a message file holds, or None when it holds none (empty, not JSON, not an
    envelope with a body and properties)."""
    try:
        envelope = loads(bytes_to_str(payload))
    except ValueError:  # JSONDecodeError and undecodable bytes alike
        return None
    if not isinstance(envelope, dict) or "body" not in envelope or not isinstance(envelope.get("properties"), dict):
        return None
    return envelope


class Channel(filesystem.Channel):
    @property
    def parked_folder(self) -> str:
        folder: str = self.transport_options.get("parked_folder") or os.path.join(tempfile.gettempdir(), "parked")
        return folder

    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]  # kombu's own two bases disagree on the name
        """Write the message under a name no consumer takes, then rename it into place (atomic)."""
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + ".part"
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue: str, timeout: float | None = None) -> Any:
        """The next whole message of `queue`; a file that holds none is parked and skipped."""
        wanted = f"{queue}.msg"
        for filename in sorted(os.listdir(self.data_folder_in)):
            if filename.partition(".")[2] != wanted:
                continue
            folder = self.processed_folder if self.store_processed else tempfile.gettempdir()
            try:
                shutil.move(os.path.join(self.data_folder_in, filename), folder)
            except OSError:  # taken by another consumer meanwhile
                continue
            path = os.path.join(folder, filename)
            try:
                with open(path, "rb") as file:
                    payload = file.read()
            except OSError as exc:
                raise ChannelError(f"Cannot read file {path!r} from queue.") from exc
            envelope = message_envelope(payload)
            if envelope is None:
                self._park(path, filename, payload)
                continue
            if not self.store_processed:
                os.remove(path)
            return envelope
        raise Empty()

    def _park(self, path: str, filename: str, payload: bytes) -> None:
        os.makedirs(self.parked_folder, exist_ok=True)
        parked = os.path.join(self.parked_folder, filename)
        try:
            shutil.move(path, parked)
        except OSError:
            parked = "(could not be moved: removed)"
            with contextlib.suppress(OSError):
                os.remove(path)
        logger.error(
            "parked a malformed message of queue %s (%d bytes, not a kombu message): %s; consuming on",
            filename.partition(".")[2].removesuffix(".msg"),
            len(payload),
            parked,
        )


class Transport(filesystem.Transport):
    Channel = Channel
