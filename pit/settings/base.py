"""Settings shared by every environment, read from the environment with django-environ.

With nothing configured the product runs embedded on one machine: SQLite (WAL, IMMEDIATE
transactions) and a Celery broker on the local filesystem, with no server to install.
Each concern has its module in `pit.settings.components`; this one gathers them (no two define the
same setting, so the order of the imports does not matter).
"""

from pit.settings.components.api import *  # noqa: F403
from pit.settings.components.celery import *  # noqa: F403
from pit.settings.components.database import *  # noqa: F403
from pit.settings.components.environment import *  # noqa: F403
from pit.settings.components.general import *  # noqa: F403
from pit.settings.components.pit import *  # noqa: F403
from pit.settings.components.records import *  # noqa: F403
from pit.settings.components.security import *  # noqa: F403
