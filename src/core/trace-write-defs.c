/* trace-write-defs.c — copies an archive's global definitions into a new archive unchanged,
 * one OTF2 definition kind per callback with OTF2's exact signature (generated once from OTF2
 * 3.0's OTF2_GlobalDefReaderCallbacks.h). ClockProperties and Location are written by
 * trace-write.c (new clock, new event counts); the deprecated Callsite is not copied; strings
 * are copied as valid UTF-8. */
#include "kubus-text.h"

#include <glib.h>
#include <otf2/otf2.h>
#include <string.h>

OTF2_GlobalDefWriter *trace_defs_copy_writer (void *ud);
OTF2_CallbackCode     trace_defs_copy_wrote (void *ud, OTF2_ErrorCode rc);
void                  trace_defs_copy_register (OTF2_GlobalDefReaderCallbacks *cbs);

/* The user data of the copy callbacks starts with this: the writer and the first error. */
typedef struct
{
  OTF2_GlobalDefWriter *w;
  OTF2_ErrorCode        rc;
} TraceDefCopyHead;

OTF2_GlobalDefWriter *
trace_defs_copy_writer (void *ud)
{
  return ((TraceDefCopyHead *) ud)->w;
}

OTF2_CallbackCode
trace_defs_copy_wrote (void *ud, OTF2_ErrorCode rc)
{
  TraceDefCopyHead *h = ud;
  if (rc != OTF2_SUCCESS && h->rc == OTF2_SUCCESS)
    h->rc = rc;
  return rc == OTF2_SUCCESS ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode
copy_Paradigm (void *ud, OTF2_Paradigm paradigm, OTF2_StringRef name, OTF2_ParadigmClass paradigmClass)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteParadigm (trace_defs_copy_writer (ud), paradigm, name, paradigmClass));
}

static OTF2_CallbackCode
copy_ParadigmProperty (void *ud, OTF2_Paradigm paradigm, OTF2_ParadigmProperty property, OTF2_Type type, OTF2_AttributeValue value)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteParadigmProperty (trace_defs_copy_writer (ud), paradigm, property, type, value));
}

static OTF2_CallbackCode
copy_IoParadigm (void *ud, OTF2_IoParadigmRef self, OTF2_StringRef identification, OTF2_StringRef name, OTF2_IoParadigmClass ioParadigmClass, OTF2_IoParadigmFlag ioParadigmFlags, uint8_t numberOfProperties, const OTF2_IoParadigmProperty* properties, const OTF2_Type* types, const OTF2_AttributeValue* values)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteIoParadigm (trace_defs_copy_writer (ud), self, identification, name, ioParadigmClass, ioParadigmFlags, numberOfProperties, properties, types, values));
}

static OTF2_CallbackCode
copy_String (void *ud, OTF2_StringRef self, const char* string)
{
  /* the one change: the new trace holds its names as valid UTF-8 (kubus-text.h) */
  g_autofree char *valid = kubus_utf8_valid (string, strlen (string)) ? NULL : kubus_text_utf8 (string);
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteString (trace_defs_copy_writer (ud), self, valid != NULL ? valid : string));
}

static OTF2_CallbackCode
copy_Attribute (void *ud, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef description, OTF2_Type type)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteAttribute (trace_defs_copy_writer (ud), self, name, description, type));
}

static OTF2_CallbackCode
copy_SystemTreeNode (void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef className, OTF2_SystemTreeNodeRef parent)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteSystemTreeNode (trace_defs_copy_writer (ud), self, name, className, parent));
}

static OTF2_CallbackCode
copy_LocationGroup (void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name, OTF2_LocationGroupType locationGroupType, OTF2_SystemTreeNodeRef systemTreeParent, OTF2_LocationGroupRef creatingLocationGroup)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteLocationGroup (trace_defs_copy_writer (ud), self, name, locationGroupType, systemTreeParent, creatingLocationGroup));
}

static OTF2_CallbackCode
copy_Region (void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonicalName, OTF2_StringRef description, OTF2_RegionRole regionRole, OTF2_Paradigm paradigm, OTF2_RegionFlag regionFlags, OTF2_StringRef sourceFile, uint32_t beginLineNumber, uint32_t endLineNumber)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteRegion (trace_defs_copy_writer (ud), self, name, canonicalName, description, regionRole, paradigm, regionFlags, sourceFile, beginLineNumber, endLineNumber));
}

static OTF2_CallbackCode
copy_Callpath (void *ud, OTF2_CallpathRef self, OTF2_CallpathRef parent, OTF2_RegionRef region)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteCallpath (trace_defs_copy_writer (ud), self, parent, region));
}

static OTF2_CallbackCode
copy_Group (void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType groupType, OTF2_Paradigm paradigm, OTF2_GroupFlag groupFlags, uint32_t numberOfMembers, const uint64_t* members)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteGroup (trace_defs_copy_writer (ud), self, name, groupType, paradigm, groupFlags, numberOfMembers, members));
}

static OTF2_CallbackCode
copy_MetricMember (void *ud, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef description, OTF2_MetricType metricType, OTF2_MetricMode metricMode, OTF2_Type valueType, OTF2_Base base, int64_t exponent, OTF2_StringRef unit)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteMetricMember (trace_defs_copy_writer (ud), self, name, description, metricType, metricMode, valueType, base, exponent, unit));
}

static OTF2_CallbackCode
copy_MetricClass (void *ud, OTF2_MetricRef self, uint8_t numberOfMetrics, const OTF2_MetricMemberRef* metricMembers, OTF2_MetricOccurrence metricOccurrence, OTF2_RecorderKind recorderKind)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteMetricClass (trace_defs_copy_writer (ud), self, numberOfMetrics, metricMembers, metricOccurrence, recorderKind));
}

static OTF2_CallbackCode
copy_MetricInstance (void *ud, OTF2_MetricRef self, OTF2_MetricRef metricClass, OTF2_LocationRef recorder, OTF2_MetricScope metricScope, uint64_t scope)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteMetricInstance (trace_defs_copy_writer (ud), self, metricClass, recorder, metricScope, scope));
}

static OTF2_CallbackCode
copy_Comm (void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteComm (trace_defs_copy_writer (ud), self, name, group, parent, flags));
}

static OTF2_CallbackCode
copy_Parameter (void *ud, OTF2_ParameterRef self, OTF2_StringRef name, OTF2_ParameterType parameterType)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteParameter (trace_defs_copy_writer (ud), self, name, parameterType));
}

static OTF2_CallbackCode
copy_RmaWin (void *ud, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteRmaWin (trace_defs_copy_writer (ud), self, name, comm, flags));
}

static OTF2_CallbackCode
copy_MetricClassRecorder (void *ud, OTF2_MetricRef metric, OTF2_LocationRef recorder)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteMetricClassRecorder (trace_defs_copy_writer (ud), metric, recorder));
}

static OTF2_CallbackCode
copy_SystemTreeNodeProperty (void *ud, OTF2_SystemTreeNodeRef systemTreeNode, OTF2_StringRef name, OTF2_Type type, OTF2_AttributeValue value)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (trace_defs_copy_writer (ud), systemTreeNode, name, type, value));
}

static OTF2_CallbackCode
copy_SystemTreeNodeDomain (void *ud, OTF2_SystemTreeNodeRef systemTreeNode, OTF2_SystemTreeDomain systemTreeDomain)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain (trace_defs_copy_writer (ud), systemTreeNode, systemTreeDomain));
}

static OTF2_CallbackCode
copy_LocationGroupProperty (void *ud, OTF2_LocationGroupRef locationGroup, OTF2_StringRef name, OTF2_Type type, OTF2_AttributeValue value)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteLocationGroupProperty (trace_defs_copy_writer (ud), locationGroup, name, type, value));
}

static OTF2_CallbackCode
copy_LocationProperty (void *ud, OTF2_LocationRef location, OTF2_StringRef name, OTF2_Type type, OTF2_AttributeValue value)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteLocationProperty (trace_defs_copy_writer (ud), location, name, type, value));
}

static OTF2_CallbackCode
copy_CartDimension (void *ud, OTF2_CartDimensionRef self, OTF2_StringRef name, uint32_t size, OTF2_CartPeriodicity cartPeriodicity)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteCartDimension (trace_defs_copy_writer (ud), self, name, size, cartPeriodicity));
}

static OTF2_CallbackCode
copy_CartTopology (void *ud, OTF2_CartTopologyRef self, OTF2_StringRef name, OTF2_CommRef communicator, uint8_t numberOfDimensions, const OTF2_CartDimensionRef* cartDimensions)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteCartTopology (trace_defs_copy_writer (ud), self, name, communicator, numberOfDimensions, cartDimensions));
}

static OTF2_CallbackCode
copy_CartCoordinate (void *ud, OTF2_CartTopologyRef cartTopology, uint32_t rank, uint8_t numberOfDimensions, const uint32_t* coordinates)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteCartCoordinate (trace_defs_copy_writer (ud), cartTopology, rank, numberOfDimensions, coordinates));
}

static OTF2_CallbackCode
copy_SourceCodeLocation (void *ud, OTF2_SourceCodeLocationRef self, OTF2_StringRef file, uint32_t lineNumber)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteSourceCodeLocation (trace_defs_copy_writer (ud), self, file, lineNumber));
}

static OTF2_CallbackCode
copy_CallingContext (void *ud, OTF2_CallingContextRef self, OTF2_RegionRef region, OTF2_SourceCodeLocationRef sourceCodeLocation, OTF2_CallingContextRef parent)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteCallingContext (trace_defs_copy_writer (ud), self, region, sourceCodeLocation, parent));
}

static OTF2_CallbackCode
copy_CallingContextProperty (void *ud, OTF2_CallingContextRef callingContext, OTF2_StringRef name, OTF2_Type type, OTF2_AttributeValue value)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteCallingContextProperty (trace_defs_copy_writer (ud), callingContext, name, type, value));
}

static OTF2_CallbackCode
copy_InterruptGenerator (void *ud, OTF2_InterruptGeneratorRef self, OTF2_StringRef name, OTF2_InterruptGeneratorMode interruptGeneratorMode, OTF2_Base base, int64_t exponent, uint64_t period)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteInterruptGenerator (trace_defs_copy_writer (ud), self, name, interruptGeneratorMode, base, exponent, period));
}

static OTF2_CallbackCode
copy_IoFileProperty (void *ud, OTF2_IoFileRef ioFile, OTF2_StringRef name, OTF2_Type type, OTF2_AttributeValue value)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteIoFileProperty (trace_defs_copy_writer (ud), ioFile, name, type, value));
}

static OTF2_CallbackCode
copy_IoRegularFile (void *ud, OTF2_IoFileRef self, OTF2_StringRef name, OTF2_SystemTreeNodeRef scope)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteIoRegularFile (trace_defs_copy_writer (ud), self, name, scope));
}

static OTF2_CallbackCode
copy_IoDirectory (void *ud, OTF2_IoFileRef self, OTF2_StringRef name, OTF2_SystemTreeNodeRef scope)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteIoDirectory (trace_defs_copy_writer (ud), self, name, scope));
}

static OTF2_CallbackCode
copy_IoHandle (void *ud, OTF2_IoHandleRef self, OTF2_StringRef name, OTF2_IoFileRef file, OTF2_IoParadigmRef ioParadigm, OTF2_IoHandleFlag ioHandleFlags, OTF2_CommRef comm, OTF2_IoHandleRef parent)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteIoHandle (trace_defs_copy_writer (ud), self, name, file, ioParadigm, ioHandleFlags, comm, parent));
}

static OTF2_CallbackCode
copy_IoPreCreatedHandleState (void *ud, OTF2_IoHandleRef ioHandle, OTF2_IoAccessMode mode, OTF2_IoStatusFlag statusFlags)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteIoPreCreatedHandleState (trace_defs_copy_writer (ud), ioHandle, mode, statusFlags));
}

static OTF2_CallbackCode
copy_CallpathParameter (void *ud, OTF2_CallpathRef callpath, OTF2_ParameterRef parameter, OTF2_Type type, OTF2_AttributeValue value)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteCallpathParameter (trace_defs_copy_writer (ud), callpath, parameter, type, value));
}

static OTF2_CallbackCode
copy_InterComm (void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef groupA, OTF2_GroupRef groupB, OTF2_CommRef commonCommunicator, OTF2_CommFlag flags)
{
  return trace_defs_copy_wrote (ud, OTF2_GlobalDefWriter_WriteInterComm (trace_defs_copy_writer (ud), self, name, groupA, groupB, commonCommunicator, flags));
}

void
trace_defs_copy_register (OTF2_GlobalDefReaderCallbacks *cbs)
{
  OTF2_GlobalDefReaderCallbacks_SetParadigmCallback (cbs, copy_Paradigm);
  OTF2_GlobalDefReaderCallbacks_SetParadigmPropertyCallback (cbs, copy_ParadigmProperty);
  OTF2_GlobalDefReaderCallbacks_SetIoParadigmCallback (cbs, copy_IoParadigm);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (cbs, copy_String);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback (cbs, copy_Attribute);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback (cbs, copy_SystemTreeNode);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback (cbs, copy_LocationGroup);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (cbs, copy_Region);
  OTF2_GlobalDefReaderCallbacks_SetCallpathCallback (cbs, copy_Callpath);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback (cbs, copy_Group);
  OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback (cbs, copy_MetricMember);
  OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback (cbs, copy_MetricClass);
  OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback (cbs, copy_MetricInstance);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback (cbs, copy_Comm);
  OTF2_GlobalDefReaderCallbacks_SetParameterCallback (cbs, copy_Parameter);
  OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback (cbs, copy_RmaWin);
  OTF2_GlobalDefReaderCallbacks_SetMetricClassRecorderCallback (cbs, copy_MetricClassRecorder);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback (cbs, copy_SystemTreeNodeProperty);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeDomainCallback (cbs, copy_SystemTreeNodeDomain);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback (cbs, copy_LocationGroupProperty);
  OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback (cbs, copy_LocationProperty);
  OTF2_GlobalDefReaderCallbacks_SetCartDimensionCallback (cbs, copy_CartDimension);
  OTF2_GlobalDefReaderCallbacks_SetCartTopologyCallback (cbs, copy_CartTopology);
  OTF2_GlobalDefReaderCallbacks_SetCartCoordinateCallback (cbs, copy_CartCoordinate);
  OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback (cbs, copy_SourceCodeLocation);
  OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback (cbs, copy_CallingContext);
  OTF2_GlobalDefReaderCallbacks_SetCallingContextPropertyCallback (cbs, copy_CallingContextProperty);
  OTF2_GlobalDefReaderCallbacks_SetInterruptGeneratorCallback (cbs, copy_InterruptGenerator);
  OTF2_GlobalDefReaderCallbacks_SetIoFilePropertyCallback (cbs, copy_IoFileProperty);
  OTF2_GlobalDefReaderCallbacks_SetIoRegularFileCallback (cbs, copy_IoRegularFile);
  OTF2_GlobalDefReaderCallbacks_SetIoDirectoryCallback (cbs, copy_IoDirectory);
  OTF2_GlobalDefReaderCallbacks_SetIoHandleCallback (cbs, copy_IoHandle);
  OTF2_GlobalDefReaderCallbacks_SetIoPreCreatedHandleStateCallback (cbs, copy_IoPreCreatedHandleState);
  OTF2_GlobalDefReaderCallbacks_SetCallpathParameterCallback (cbs, copy_CallpathParameter);
  OTF2_GlobalDefReaderCallbacks_SetInterCommCallback (cbs, copy_InterComm);
}
