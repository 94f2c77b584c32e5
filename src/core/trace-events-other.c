/* trace-events-other.c — the OTF2 event kinds the simulator does not model. Measurement-only
 * events (metrics, parameters, buffer flushes, measurement on/off, communicator create/destroy)
 * are dropped; the others (threads, OpenMP, RMA, I/O, calling context samples) cannot be
 * re-enacted (non-blocking collective events are listed here too, but trace-events.c reads
 * them since 2026-11-29): the reader counts them by kind so the simulator can name
 * them when it refuses the trace. One callback per kind, each with OTF2's exact signature
 * (generated once from OTF2 3.0's OTF2_EvtReaderCallbacks.h). */
#include <glib.h>
#include <otf2/otf2.h>

OTF2_CallbackCode trace_events_other (void *ud, const char *kind, gboolean dropped);
void              trace_events_register_other (OTF2_EvtReaderCallbacks *cbs);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

static OTF2_CallbackCode
on_BufferFlush (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_TimeStamp stopTime)
{
  return trace_events_other (ud, "BufferFlush", TRUE);
}

static OTF2_CallbackCode
on_MeasurementOnOff (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_MeasurementMode measurementMode)
{
  return trace_events_other (ud, "MeasurementOnOff", TRUE);
}

static OTF2_CallbackCode
on_OmpFork (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, uint32_t numberOfRequestedThreads)
{
  return trace_events_other (ud, "OmpFork", FALSE);
}

static OTF2_CallbackCode
on_OmpJoin (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al)
{
  return trace_events_other (ud, "OmpJoin", FALSE);
}

static OTF2_CallbackCode
on_OmpAcquireLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, uint32_t lockID, uint32_t acquisitionOrder)
{
  return trace_events_other (ud, "OmpAcquireLock", FALSE);
}

static OTF2_CallbackCode
on_OmpReleaseLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, uint32_t lockID, uint32_t acquisitionOrder)
{
  return trace_events_other (ud, "OmpReleaseLock", FALSE);
}

static OTF2_CallbackCode
on_OmpTaskCreate (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, uint64_t taskID)
{
  return trace_events_other (ud, "OmpTaskCreate", FALSE);
}

static OTF2_CallbackCode
on_OmpTaskSwitch (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, uint64_t taskID)
{
  return trace_events_other (ud, "OmpTaskSwitch", FALSE);
}

static OTF2_CallbackCode
on_OmpTaskComplete (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, uint64_t taskID)
{
  return trace_events_other (ud, "OmpTaskComplete", FALSE);
}

static OTF2_CallbackCode
on_Metric (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_MetricRef metric, uint8_t numberOfMetrics, const OTF2_Type* typeIDs, const OTF2_MetricValue* metricValues)
{
  return trace_events_other (ud, "Metric", TRUE);
}

static OTF2_CallbackCode
on_ParameterString (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_ParameterRef parameter, OTF2_StringRef string)
{
  return trace_events_other (ud, "ParameterString", TRUE);
}

static OTF2_CallbackCode
on_ParameterInt (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_ParameterRef parameter, int64_t value)
{
  return trace_events_other (ud, "ParameterInt", TRUE);
}

static OTF2_CallbackCode
on_ParameterUnsignedInt (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_ParameterRef parameter, uint64_t value)
{
  return trace_events_other (ud, "ParameterUnsignedInt", TRUE);
}

static OTF2_CallbackCode
on_RmaWinCreate (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win)
{
  return trace_events_other (ud, "RmaWinCreate", FALSE);
}

static OTF2_CallbackCode
on_RmaWinDestroy (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win)
{
  return trace_events_other (ud, "RmaWinDestroy", FALSE);
}

static OTF2_CallbackCode
on_RmaCollectiveBegin (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al)
{
  return trace_events_other (ud, "RmaCollectiveBegin", FALSE);
}

static OTF2_CallbackCode
on_RmaCollectiveEnd (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CollectiveOp collectiveOp, OTF2_RmaSyncLevel syncLevel, OTF2_RmaWinRef win, uint32_t root, uint64_t bytesSent, uint64_t bytesReceived)
{
  return trace_events_other (ud, "RmaCollectiveEnd", FALSE);
}

static OTF2_CallbackCode
on_RmaGroupSync (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaSyncLevel syncLevel, OTF2_RmaWinRef win, OTF2_GroupRef group)
{
  return trace_events_other (ud, "RmaGroupSync", FALSE);
}

static OTF2_CallbackCode
on_RmaRequestLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId, OTF2_LockType lockType)
{
  return trace_events_other (ud, "RmaRequestLock", FALSE);
}

static OTF2_CallbackCode
on_RmaAcquireLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId, OTF2_LockType lockType)
{
  return trace_events_other (ud, "RmaAcquireLock", FALSE);
}

static OTF2_CallbackCode
on_RmaTryLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId, OTF2_LockType lockType)
{
  return trace_events_other (ud, "RmaTryLock", FALSE);
}

static OTF2_CallbackCode
on_RmaReleaseLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId)
{
  return trace_events_other (ud, "RmaReleaseLock", FALSE);
}

static OTF2_CallbackCode
on_RmaSync (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaSyncType syncType)
{
  return trace_events_other (ud, "RmaSync", FALSE);
}

static OTF2_CallbackCode
on_RmaWaitChange (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win)
{
  return trace_events_other (ud, "RmaWaitChange", FALSE);
}

static OTF2_CallbackCode
on_RmaPut (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t matchingId)
{
  return trace_events_other (ud, "RmaPut", FALSE);
}

static OTF2_CallbackCode
on_RmaGet (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t matchingId)
{
  return trace_events_other (ud, "RmaGet", FALSE);
}

static OTF2_CallbackCode
on_RmaAtomic (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaAtomicType type, uint64_t bytesSent, uint64_t bytesReceived, uint64_t matchingId)
{
  return trace_events_other (ud, "RmaAtomic", FALSE);
}

static OTF2_CallbackCode
on_RmaOpCompleteBlocking (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint64_t matchingId)
{
  return trace_events_other (ud, "RmaOpCompleteBlocking", FALSE);
}

static OTF2_CallbackCode
on_RmaOpCompleteNonBlocking (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint64_t matchingId)
{
  return trace_events_other (ud, "RmaOpCompleteNonBlocking", FALSE);
}

static OTF2_CallbackCode
on_RmaOpTest (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint64_t matchingId)
{
  return trace_events_other (ud, "RmaOpTest", FALSE);
}

static OTF2_CallbackCode
on_RmaOpCompleteRemote (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_RmaWinRef win, uint64_t matchingId)
{
  return trace_events_other (ud, "RmaOpCompleteRemote", FALSE);
}

static OTF2_CallbackCode
on_ThreadFork (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_Paradigm model, uint32_t numberOfRequestedThreads)
{
  return trace_events_other (ud, "ThreadFork", FALSE);
}

static OTF2_CallbackCode
on_ThreadJoin (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_Paradigm model)
{
  return trace_events_other (ud, "ThreadJoin", FALSE);
}

static OTF2_CallbackCode
on_ThreadTeamBegin (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef threadTeam)
{
  return trace_events_other (ud, "ThreadTeamBegin", FALSE);
}

static OTF2_CallbackCode
on_ThreadTeamEnd (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef threadTeam)
{
  return trace_events_other (ud, "ThreadTeamEnd", FALSE);
}

static OTF2_CallbackCode
on_ThreadAcquireLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_Paradigm model, uint32_t lockID, uint32_t acquisitionOrder)
{
  return trace_events_other (ud, "ThreadAcquireLock", FALSE);
}

static OTF2_CallbackCode
on_ThreadReleaseLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_Paradigm model, uint32_t lockID, uint32_t acquisitionOrder)
{
  return trace_events_other (ud, "ThreadReleaseLock", FALSE);
}

static OTF2_CallbackCode
on_ThreadTaskCreate (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef threadTeam, uint32_t creatingThread, uint32_t generationNumber)
{
  return trace_events_other (ud, "ThreadTaskCreate", FALSE);
}

static OTF2_CallbackCode
on_ThreadTaskSwitch (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef threadTeam, uint32_t creatingThread, uint32_t generationNumber)
{
  return trace_events_other (ud, "ThreadTaskSwitch", FALSE);
}

static OTF2_CallbackCode
on_ThreadTaskComplete (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef threadTeam, uint32_t creatingThread, uint32_t generationNumber)
{
  return trace_events_other (ud, "ThreadTaskComplete", FALSE);
}

static OTF2_CallbackCode
on_ThreadCreate (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef threadContingent, uint64_t sequenceCount)
{
  return trace_events_other (ud, "ThreadCreate", FALSE);
}

static OTF2_CallbackCode
on_ThreadBegin (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef threadContingent, uint64_t sequenceCount)
{
  return trace_events_other (ud, "ThreadBegin", FALSE);
}

static OTF2_CallbackCode
on_ThreadWait (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef threadContingent, uint64_t sequenceCount)
{
  return trace_events_other (ud, "ThreadWait", FALSE);
}

static OTF2_CallbackCode
on_ThreadEnd (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef threadContingent, uint64_t sequenceCount)
{
  return trace_events_other (ud, "ThreadEnd", FALSE);
}

static OTF2_CallbackCode
on_CallingContextEnter (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CallingContextRef callingContext, uint32_t unwindDistance)
{
  return trace_events_other (ud, "CallingContextEnter", FALSE);
}

static OTF2_CallbackCode
on_CallingContextLeave (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CallingContextRef callingContext)
{
  return trace_events_other (ud, "CallingContextLeave", FALSE);
}

static OTF2_CallbackCode
on_CallingContextSample (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CallingContextRef callingContext, uint32_t unwindDistance, OTF2_InterruptGeneratorRef interruptGenerator)
{
  return trace_events_other (ud, "CallingContextSample", FALSE);
}

static OTF2_CallbackCode
on_IoCreateHandle (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, OTF2_IoAccessMode mode, OTF2_IoCreationFlag creationFlags, OTF2_IoStatusFlag statusFlags)
{
  return trace_events_other (ud, "IoCreateHandle", FALSE);
}

static OTF2_CallbackCode
on_IoDestroyHandle (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle)
{
  return trace_events_other (ud, "IoDestroyHandle", FALSE);
}

static OTF2_CallbackCode
on_IoDuplicateHandle (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef oldHandle, OTF2_IoHandleRef newHandle, OTF2_IoStatusFlag statusFlags)
{
  return trace_events_other (ud, "IoDuplicateHandle", FALSE);
}

static OTF2_CallbackCode
on_IoSeek (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, int64_t offsetRequest, OTF2_IoSeekOption whence, uint64_t offsetResult)
{
  return trace_events_other (ud, "IoSeek", FALSE);
}

static OTF2_CallbackCode
on_IoChangeStatusFlags (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, OTF2_IoStatusFlag statusFlags)
{
  return trace_events_other (ud, "IoChangeStatusFlags", FALSE);
}

static OTF2_CallbackCode
on_IoDeleteFile (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoParadigmRef ioParadigm, OTF2_IoFileRef file)
{
  return trace_events_other (ud, "IoDeleteFile", FALSE);
}

static OTF2_CallbackCode
on_IoOperationBegin (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, OTF2_IoOperationMode mode, OTF2_IoOperationFlag operationFlags, uint64_t bytesRequest, uint64_t matchingId)
{
  return trace_events_other (ud, "IoOperationBegin", FALSE);
}

static OTF2_CallbackCode
on_IoOperationTest (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, uint64_t matchingId)
{
  return trace_events_other (ud, "IoOperationTest", FALSE);
}

static OTF2_CallbackCode
on_IoOperationIssued (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, uint64_t matchingId)
{
  return trace_events_other (ud, "IoOperationIssued", FALSE);
}

static OTF2_CallbackCode
on_IoOperationComplete (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, uint64_t bytesResult, uint64_t matchingId)
{
  return trace_events_other (ud, "IoOperationComplete", FALSE);
}

static OTF2_CallbackCode
on_IoOperationCancelled (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, uint64_t matchingId)
{
  return trace_events_other (ud, "IoOperationCancelled", FALSE);
}

static OTF2_CallbackCode
on_IoAcquireLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, OTF2_LockType lockType)
{
  return trace_events_other (ud, "IoAcquireLock", FALSE);
}

static OTF2_CallbackCode
on_IoReleaseLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, OTF2_LockType lockType)
{
  return trace_events_other (ud, "IoReleaseLock", FALSE);
}

static OTF2_CallbackCode
on_IoTryLock (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_IoHandleRef handle, OTF2_LockType lockType)
{
  return trace_events_other (ud, "IoTryLock", FALSE);
}

static OTF2_CallbackCode
on_NonBlockingCollectiveRequest (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, uint64_t requestID)
{
  return trace_events_other (ud, "NonBlockingCollectiveRequest", TRUE);
}

static OTF2_CallbackCode
on_NonBlockingCollectiveComplete (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CollectiveOp collectiveOp, OTF2_CommRef communicator, uint32_t root, uint64_t sizeSent, uint64_t sizeReceived, uint64_t requestID)
{
  return trace_events_other (ud, "NonBlockingCollectiveComplete", TRUE);
}

static OTF2_CallbackCode
on_CommCreate (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef communicator)
{
  return trace_events_other (ud, "CommCreate", TRUE);
}

static OTF2_CallbackCode
on_CommDestroy (OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *ud, OTF2_AttributeList *al, OTF2_CommRef communicator)
{
  return trace_events_other (ud, "CommDestroy", TRUE);
}

#pragma GCC diagnostic pop

void
trace_events_register_other (OTF2_EvtReaderCallbacks *cbs)
{
  OTF2_EvtReaderCallbacks_SetBufferFlushCallback (cbs, on_BufferFlush);
  OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback (cbs, on_MeasurementOnOff);
  OTF2_EvtReaderCallbacks_SetOmpForkCallback (cbs, on_OmpFork);
  OTF2_EvtReaderCallbacks_SetOmpJoinCallback (cbs, on_OmpJoin);
  OTF2_EvtReaderCallbacks_SetOmpAcquireLockCallback (cbs, on_OmpAcquireLock);
  OTF2_EvtReaderCallbacks_SetOmpReleaseLockCallback (cbs, on_OmpReleaseLock);
  OTF2_EvtReaderCallbacks_SetOmpTaskCreateCallback (cbs, on_OmpTaskCreate);
  OTF2_EvtReaderCallbacks_SetOmpTaskSwitchCallback (cbs, on_OmpTaskSwitch);
  OTF2_EvtReaderCallbacks_SetOmpTaskCompleteCallback (cbs, on_OmpTaskComplete);
  OTF2_EvtReaderCallbacks_SetMetricCallback (cbs, on_Metric);
  OTF2_EvtReaderCallbacks_SetParameterStringCallback (cbs, on_ParameterString);
  OTF2_EvtReaderCallbacks_SetParameterIntCallback (cbs, on_ParameterInt);
  OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback (cbs, on_ParameterUnsignedInt);
  OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback (cbs, on_RmaWinCreate);
  OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback (cbs, on_RmaWinDestroy);
  OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback (cbs, on_RmaCollectiveBegin);
  OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback (cbs, on_RmaCollectiveEnd);
  OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback (cbs, on_RmaGroupSync);
  OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback (cbs, on_RmaRequestLock);
  OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback (cbs, on_RmaAcquireLock);
  OTF2_EvtReaderCallbacks_SetRmaTryLockCallback (cbs, on_RmaTryLock);
  OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback (cbs, on_RmaReleaseLock);
  OTF2_EvtReaderCallbacks_SetRmaSyncCallback (cbs, on_RmaSync);
  OTF2_EvtReaderCallbacks_SetRmaWaitChangeCallback (cbs, on_RmaWaitChange);
  OTF2_EvtReaderCallbacks_SetRmaPutCallback (cbs, on_RmaPut);
  OTF2_EvtReaderCallbacks_SetRmaGetCallback (cbs, on_RmaGet);
  OTF2_EvtReaderCallbacks_SetRmaAtomicCallback (cbs, on_RmaAtomic);
  OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback (cbs, on_RmaOpCompleteBlocking);
  OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback (cbs, on_RmaOpCompleteNonBlocking);
  OTF2_EvtReaderCallbacks_SetRmaOpTestCallback (cbs, on_RmaOpTest);
  OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback (cbs, on_RmaOpCompleteRemote);
  OTF2_EvtReaderCallbacks_SetThreadForkCallback (cbs, on_ThreadFork);
  OTF2_EvtReaderCallbacks_SetThreadJoinCallback (cbs, on_ThreadJoin);
  OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback (cbs, on_ThreadTeamBegin);
  OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback (cbs, on_ThreadTeamEnd);
  OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback (cbs, on_ThreadAcquireLock);
  OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback (cbs, on_ThreadReleaseLock);
  OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback (cbs, on_ThreadTaskCreate);
  OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback (cbs, on_ThreadTaskSwitch);
  OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback (cbs, on_ThreadTaskComplete);
  OTF2_EvtReaderCallbacks_SetThreadCreateCallback (cbs, on_ThreadCreate);
  OTF2_EvtReaderCallbacks_SetThreadBeginCallback (cbs, on_ThreadBegin);
  OTF2_EvtReaderCallbacks_SetThreadWaitCallback (cbs, on_ThreadWait);
  OTF2_EvtReaderCallbacks_SetThreadEndCallback (cbs, on_ThreadEnd);
  OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback (cbs, on_CallingContextEnter);
  OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback (cbs, on_CallingContextLeave);
  OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback (cbs, on_CallingContextSample);
  OTF2_EvtReaderCallbacks_SetIoCreateHandleCallback (cbs, on_IoCreateHandle);
  OTF2_EvtReaderCallbacks_SetIoDestroyHandleCallback (cbs, on_IoDestroyHandle);
  OTF2_EvtReaderCallbacks_SetIoDuplicateHandleCallback (cbs, on_IoDuplicateHandle);
  OTF2_EvtReaderCallbacks_SetIoSeekCallback (cbs, on_IoSeek);
  OTF2_EvtReaderCallbacks_SetIoChangeStatusFlagsCallback (cbs, on_IoChangeStatusFlags);
  OTF2_EvtReaderCallbacks_SetIoDeleteFileCallback (cbs, on_IoDeleteFile);
  OTF2_EvtReaderCallbacks_SetIoOperationBeginCallback (cbs, on_IoOperationBegin);
  OTF2_EvtReaderCallbacks_SetIoOperationTestCallback (cbs, on_IoOperationTest);
  OTF2_EvtReaderCallbacks_SetIoOperationIssuedCallback (cbs, on_IoOperationIssued);
  OTF2_EvtReaderCallbacks_SetIoOperationCompleteCallback (cbs, on_IoOperationComplete);
  OTF2_EvtReaderCallbacks_SetIoOperationCancelledCallback (cbs, on_IoOperationCancelled);
  OTF2_EvtReaderCallbacks_SetIoAcquireLockCallback (cbs, on_IoAcquireLock);
  OTF2_EvtReaderCallbacks_SetIoReleaseLockCallback (cbs, on_IoReleaseLock);
  OTF2_EvtReaderCallbacks_SetIoTryLockCallback (cbs, on_IoTryLock);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback (cbs, on_NonBlockingCollectiveRequest);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback (cbs, on_NonBlockingCollectiveComplete);
  OTF2_EvtReaderCallbacks_SetCommCreateCallback (cbs, on_CommCreate);
  OTF2_EvtReaderCallbacks_SetCommDestroyCallback (cbs, on_CommDestroy);
}
