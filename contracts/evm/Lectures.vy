# pragma version 0.4.3
# The paid-courses rail's contract: a teacher's lecture is sold in runs (at most five); students buy
# a seat in a run at its exact price while seats remain, the teacher records who attended which
# session, students who attended enough evaluate the run once, and after the run ends the platform
# settles it once: 10 % platform fee, of which the teacher gets back an incentive set by the run's
# average evaluation (rails.md §3.3). A cancelled run refunds its students.
# contracts/evm/README.md has the state machine, the fee math and the rules that replace the
# failures of rails.md §3.
#
# Money: the settlement credits the teacher and the platform; each takes it with withdraw()
# (pendingWithdrawal(account) shows it). A student of a cancelled run takes the seat's price back
# with refund(). Every function that changes state holds the contract's reentrancy lock.

MAX_RUNS: public(constant(uint256)) = 5
MAX_SESSIONS: public(constant(uint256)) = 256
MAX_SCORE: public(constant(uint256)) = 100
FEE_PERCENT: public(constant(uint256)) = 10

# Run states (0 is "no such run").
OPEN: constant(uint8) = 1
SETTLED: constant(uint8) = 2
CANCELLED: constant(uint8) = 3

struct Lecture:
    teacher: address
    sessions: uint256  # class meetings of every run, 1..256 (session numbers 0..sessions-1)
    minAttendance: uint256  # sessions a student must have attended to evaluate, 1..sessions
    runCount: uint256  # runs opened so far, 1..5; the current run is runCount - 1

struct Run:
    state: uint8
    price: uint256  # wei per seat
    capacity: uint256
    sold: uint256
    total: uint256  # wei paid for seats
    endTime: uint256
    evaluations: uint256
    scoreSums: uint256[5]  # preparation, content, proceeding, communication, satisfaction

struct Seat:
    paid: uint256  # 0: no seat
    attendance: uint256  # sessions attended
    sessionsAttended: uint256  # bit s set: attended session s
    evaluated: bool
    refunded: bool

event LectureCreated:
    lectureId: indexed(uint256)
    teacher: indexed(address)
    sessions: uint256
    minAttendance: uint256

event RunOpened:
    lectureId: indexed(uint256)
    run: indexed(uint256)
    price: uint256
    capacity: uint256
    endTime: uint256

event SeatPurchased:
    lectureId: indexed(uint256)
    run: indexed(uint256)
    student: indexed(address)
    price: uint256

event AttendanceRecorded:
    lectureId: indexed(uint256)
    run: indexed(uint256)
    student: indexed(address)
    session: uint256
    attendance: uint256

event Evaluated:
    lectureId: indexed(uint256)
    run: indexed(uint256)
    student: indexed(address)
    scores: uint256[5]
    evaluations: uint256

event RunSettled:
    lectureId: indexed(uint256)
    run: indexed(uint256)
    total: uint256
    average: uint256
    fee: uint256
    incentive: uint256
    teacherAmount: uint256

event RunCancelled:
    lectureId: indexed(uint256)
    run: indexed(uint256)

event Refunded:
    lectureId: indexed(uint256)
    run: indexed(uint256)
    student: indexed(address)
    amount: uint256

event Withdrawn:
    account: indexed(address)
    amount: uint256

platform: public(address)
lectureCount: public(uint256)

lectures: HashMap[uint256, Lecture]
runs: HashMap[uint256, HashMap[uint256, Run]]
seats: HashMap[uint256, HashMap[uint256, HashMap[address, Seat]]]
pending: HashMap[address, uint256]


@deploy
def __init__(platform: address):
    assert platform != empty(address), "empty platform"
    self.platform = platform


# ---------------------------------------------------------------------------------------------
# Views and the fee math.

@view
@external
def lecture(lectureId: uint256) -> Lecture:
    return self.lectures[lectureId]


@view
@external
def run(lectureId: uint256, run: uint256) -> Run:
    return self.runs[lectureId][run]


@view
@external
def seat(lectureId: uint256, run: uint256, student: address) -> Seat:
    return self.seats[lectureId][run][student]


@view
@external
def pendingWithdrawal(account: address) -> uint256:
    return self.pending[account]


# §3's average: the sum of all five scores of every evaluation over five times the number of
# evaluations, rounded down (0..100). Defined as 0 when there is no evaluation.
@pure
@internal
def _average(sums: uint256[5], evaluations: uint256) -> uint256:
    if evaluations == 0:
        return 0
    return (sums[0] + sums[1] + sums[2] + sums[3] + sums[4]) // (evaluations * 5)


@view
@external
def runAverage(lectureId: uint256, run: uint256) -> uint256:
    entry: Run = self.runs[lectureId][run]
    return self._average(entry.scoreSums, entry.evaluations)


# The average over every run of the lecture (§3's calculateEvaluationAveragePoint), 0 when none.
@view
@external
def averagePoint(lectureId: uint256) -> uint256:
    sums: uint256[5] = empty(uint256[5])
    evaluations: uint256 = 0
    for index: uint256 in range(MAX_RUNS):
        entry: Run = self.runs[lectureId][index]
        evaluations += entry.evaluations
        for k: uint256 in range(5):
            sums[k] += entry.scoreSums[k]
    return self._average(sums, evaluations)


# The teacher's incentive in percent of the fee: 15 for an average of 100, 10 for 80..99,
# 5 for 60..79, 0 below (§3.3).
@pure
@internal
def _incentive_percent(average: uint256) -> uint256:
    if average >= 100:
        return 15
    if average >= 80:
        return 10
    if average >= 60:
        return 5
    return 0


# The settlement of a run that took `total` wei with this `average`: (fee, incentive, teacher's
# amount). fee = total // 10; incentive = (fee * percent + 50) // 100 (rounded half up, §3.3);
# the teacher gets total - fee + incentive, the platform fee - incentive.
@pure
@internal
def _split(total: uint256, average: uint256) -> (uint256, uint256, uint256):
    fee: uint256 = total * FEE_PERCENT // 100
    incentive: uint256 = (fee * self._incentive_percent(average) + 50) // 100
    return fee, incentive, total - fee + incentive


@pure
@external
def settlementOf(total: uint256, average: uint256) -> (uint256, uint256, uint256):
    return self._split(total, average)


# ---------------------------------------------------------------------------------------------
# Lectures and runs.

@internal
def _open_run(lecture_id: uint256, index: uint256, price: uint256, capacity: uint256, end_time: uint256):
    assert price > 0, "price is zero"
    assert capacity > 0, "capacity is zero"
    assert end_time > block.timestamp, "the end is not in the future"
    fresh: Run = empty(Run)
    fresh.state = OPEN
    fresh.price = price
    fresh.capacity = capacity
    fresh.endTime = end_time
    self.runs[lecture_id][index] = fresh
    self.lectures[lecture_id].runCount = index + 1
    log RunOpened(lectureId=lecture_id, run=index, price=price, capacity=capacity, endTime=end_time)


@external
@nonreentrant
def createLecture(price: uint256, capacity: uint256, sessions: uint256, minAttendance: uint256, endTime: uint256) -> uint256:
    assert sessions > 0 and sessions <= MAX_SESSIONS, "sessions out of range"
    assert minAttendance > 0 and minAttendance <= sessions, "minimum attendance out of range"
    lecture_id: uint256 = self.lectureCount + 1
    self.lectureCount = lecture_id
    self.lectures[lecture_id] = Lecture(teacher=msg.sender, sessions=sessions, minAttendance=minAttendance, runCount=0)
    log LectureCreated(lectureId=lecture_id, teacher=msg.sender, sessions=sessions, minAttendance=minAttendance)
    self._open_run(lecture_id, 0, price, capacity, endTime)
    return lecture_id


# A new run of the lecture, once the current one is settled or cancelled; five runs at most.
@external
@nonreentrant
def rerunLecture(lectureId: uint256, price: uint256, capacity: uint256, endTime: uint256) -> uint256:
    entry: Lecture = self.lectures[lectureId]
    assert entry.teacher != empty(address), "no such lecture"
    assert msg.sender == entry.teacher, "only the teacher reruns"
    assert self.runs[lectureId][entry.runCount - 1].state != OPEN, "the current run is still open"
    assert entry.runCount < MAX_RUNS, "five runs already"
    self._open_run(lectureId, entry.runCount, price, capacity, endTime)
    return entry.runCount


# The current run of a lecture, which must be open.
@view
@internal
def _open_run_of(lecture_id: uint256) -> uint256:
    run_count: uint256 = self.lectures[lecture_id].runCount
    assert run_count > 0, "no such lecture"
    assert self.runs[lecture_id][run_count - 1].state == OPEN, "the run is closed"
    return run_count - 1


@external
@payable
@nonreentrant
def purchase(lectureId: uint256):
    index: uint256 = self._open_run_of(lectureId)
    entry: Run = self.runs[lectureId][index]
    assert block.timestamp < entry.endTime, "the run has ended"
    assert msg.sender != self.lectures[lectureId].teacher, "the teacher cannot buy a seat"
    assert self.seats[lectureId][index][msg.sender].paid == 0, "already has a seat in this run"
    assert entry.sold < entry.capacity, "no seat left"
    assert msg.value == entry.price, "payment must equal the price"
    self.runs[lectureId][index].sold = entry.sold + 1
    self.runs[lectureId][index].total = entry.total + msg.value
    self.seats[lectureId][index][msg.sender].paid = msg.value
    log SeatPurchased(lectureId=lectureId, run=index, student=msg.sender, price=msg.value)


@external
@nonreentrant
def recordAttendance(lectureId: uint256, session: uint256, student: address):
    index: uint256 = self._open_run_of(lectureId)
    assert msg.sender == self.lectures[lectureId].teacher, "only the teacher records attendance"
    assert session < self.lectures[lectureId].sessions, "no such session"
    seat: Seat = self.seats[lectureId][index][student]
    assert seat.paid > 0, "not a student of this run"
    bit: uint256 = 1 << session
    assert seat.sessionsAttended & bit == 0, "attendance already recorded"
    self.seats[lectureId][index][student].sessionsAttended = seat.sessionsAttended | bit
    self.seats[lectureId][index][student].attendance = seat.attendance + 1
    log AttendanceRecorded(lectureId=lectureId, run=index, student=student, session=session, attendance=seat.attendance + 1)


# A student of the current run who attended at least minAttendance sessions evaluates it once,
# while it is open, with five scores 0..100.
@external
@nonreentrant
def evaluate(lectureId: uint256, scores: uint256[5]):
    index: uint256 = self._open_run_of(lectureId)
    seat: Seat = self.seats[lectureId][index][msg.sender]
    assert seat.paid > 0, "not a student of this run"
    assert not seat.evaluated, "already evaluated"
    assert seat.attendance >= self.lectures[lectureId].minAttendance, "not enough attendance"
    sums: uint256[5] = self.runs[lectureId][index].scoreSums
    for k: uint256 in range(5):
        assert scores[k] <= MAX_SCORE, "score above 100"
        sums[k] += scores[k]
    evaluations: uint256 = self.runs[lectureId][index].evaluations + 1
    self.runs[lectureId][index].scoreSums = sums
    self.runs[lectureId][index].evaluations = evaluations
    self.seats[lectureId][index][msg.sender].evaluated = True
    log Evaluated(lectureId=lectureId, run=index, student=msg.sender, scores=scores, evaluations=evaluations)


# The platform settles the current run once, after its end (see _split).
@external
@nonreentrant
def settle(lectureId: uint256):
    index: uint256 = self._open_run_of(lectureId)
    assert msg.sender == self.platform, "only the platform settles"
    entry: Run = self.runs[lectureId][index]
    assert block.timestamp >= entry.endTime, "the run has not ended"
    self.runs[lectureId][index].state = SETTLED
    average: uint256 = self._average(entry.scoreSums, entry.evaluations)
    fee: uint256 = 0
    incentive: uint256 = 0
    to_teacher: uint256 = 0
    fee, incentive, to_teacher = self._split(entry.total, average)
    self.pending[self.lectures[lectureId].teacher] += to_teacher
    self.pending[self.platform] += fee - incentive
    log RunSettled(
        lectureId=lectureId,
        run=index,
        total=entry.total,
        average=average,
        fee=fee,
        incentive=incentive,
        teacherAmount=to_teacher,
    )


# The teacher or the platform cancels the current run before it is settled; its students then
# take their payments back with refund().
@external
@nonreentrant
def cancelRun(lectureId: uint256):
    index: uint256 = self._open_run_of(lectureId)
    assert msg.sender == self.lectures[lectureId].teacher or msg.sender == self.platform, "only the teacher or the platform cancels"
    self.runs[lectureId][index].state = CANCELLED
    log RunCancelled(lectureId=lectureId, run=index)


@external
@nonreentrant
def refund(lectureId: uint256, run: uint256):
    assert self.runs[lectureId][run].state == CANCELLED, "the run is not cancelled"
    seat: Seat = self.seats[lectureId][run][msg.sender]
    assert seat.paid > 0, "not a student of this run"
    assert not seat.refunded, "already refunded"
    self.seats[lectureId][run][msg.sender].refunded = True
    raw_call(msg.sender, b"", value=seat.paid)
    log Refunded(lectureId=lectureId, run=run, student=msg.sender, amount=seat.paid)


@external
@nonreentrant
def withdraw():
    amount: uint256 = self.pending[msg.sender]
    assert amount > 0, "nothing to withdraw"
    self.pending[msg.sender] = 0
    # A failed payment reverts the whole call, so the credit stays for a later try.
    raw_call(msg.sender, b"", value=amount)
    log Withdrawn(account=msg.sender, amount=amount)
