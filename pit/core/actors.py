"""Who is acting: a staff user, a floor device, or the system (a Celery job, a command)."""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Actor:
    user: Any = None
    device: Any = None

    @classmethod
    def system(cls) -> "Actor":
        return cls()

    def recorded_fields(self) -> dict[str, Any]:
        """Keyword arguments for a `Recorded` model."""
        return {"recorded_by_user": self.user, "recorded_by_device": self.device}

    def __str__(self) -> str:
        if self.device is not None:
            return f"device {self.device}"
        if self.user is not None:
            return f"user {self.user}"
        return "system"


SYSTEM = Actor.system()
