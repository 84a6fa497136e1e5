"""High availability: of the instances started with the same configuration, one is active and the others wait.

The election is a Kafka consumer group on a single-partition lease topic (`lease.py`): the member assigned
partition 0 is active. The fencing is the producer's: every instance has the same `transactional.id`, and the
new active instance's `init_transactions` bumps its epoch, so Kafka refuses anything a former active instance
still tries to write (`ha_settings.ha_problems` refuses HA without it).
"""

from connector.ha.lease import KafkaLease, LeaseConsumer
from connector.ha.state import (
           HaRole,
           HaState,
           SteppedDown,
           exit_unless_stopped,
           stepped_down,
)
from connector.kafka.delivery import is_fenced

__all__ = ["HaRole", "HaState", "KafkaLease", "LeaseConsumer", "SteppedDown", "exit_unless_stopped", "is_fenced",
           "stepped_down"]
