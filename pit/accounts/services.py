"""Write services for staff users and floor devices."""
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction

from pit.accounts.models import Role


@transaction.atomic
def user_create_with_role(*, username: str, password: str, role: str, email: str = ""):
    """A staff user (admin login) in the group of `role` ("pit boss", "accountant", "auditor")."""
    if role not in Role.values:
        raise ValidationError({"role": f"Unknown role {role!r}; one of {', '.join(Role.values)}."})
    if role == Role.FLOOR_DEVICE:
        raise ValidationError({"role": "Floor devices authenticate with an API key, not as staff users."})
    user = get_user_model()(username=username, email=email, is_staff=True)
    user.set_password(password)
    user.full_clean(exclude=["password"])
    user.save()
    user.groups.add(Group.objects.get(name=role))
    return user
