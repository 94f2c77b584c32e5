/* patterns-more.c — small MPI programs nobody tuned kubus-sim for, one per pattern (the first
 * argument): sendrecv bsend rsend waitany bigcoll allgatherv neighbor testsome passive replace
 * improbe vector dup ireduce cancel; then the rounds (200) and "busy" to compute for CPU time
 * instead of sleeping. bench/sim/identity-sweep.sh traces each and prints its identity error
 * (docs/benchmarks.md, "MPI calls without messages under shared cores"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static volatile double sink;
static int busy;
static void work(long us){
  if(!busy){ struct timespec t={us/1000000,(us%1000000)*1000}; nanosleep(&t,NULL); return; }
  struct timespec a,b; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&a); double x=1;
  for(;;){ for(int i=0;i<2000;i++) x=x*1.0000001+1e-9; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&b);
    if((b.tv_sec-a.tv_sec)*1000000L+(b.tv_nsec-a.tv_nsec)/1000>=us) break;} sink=x; }
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); int r,n; MPI_Comm_rank(MPI_COMM_WORLD,&r); MPI_Comm_size(MPI_COMM_WORLD,&n);
  const char*m=argc>1?argv[1]:"sendrecv"; int it=argc>2?atoi(argv[2]):200; busy=argc>3&&!strcmp(argv[3],"busy");
  static double sb[1<<18], rb[1<<18];
  int L=(r+n-1)%n,R=(r+1)%n;
  if(!strcmp(m,"sendrecv")){ for(int i=0;i<it;i++){ work(300+150*((r+i)%n)); MPI_Sendrecv(sb,3000,MPI_DOUBLE,R,0,rb,3000,MPI_DOUBLE,L,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE);} }
  else if(!strcmp(m,"bsend")){ int sz=(8*2000+MPI_BSEND_OVERHEAD)*4; void*buf=malloc(sz); MPI_Buffer_attach(buf,sz);
    for(int i=0;i<it;i++){ work(400+300*(r==0)); MPI_Bsend(sb,2000,MPI_DOUBLE,R,1,MPI_COMM_WORLD); MPI_Recv(rb,2000,MPI_DOUBLE,L,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);}
    MPI_Buffer_detach(&buf,&sz); free(buf); }
  else if(!strcmp(m,"rsend")){ for(int i=0;i<it;i++){ MPI_Request q; MPI_Irecv(rb,500,MPI_DOUBLE,L,2,MPI_COMM_WORLD,&q); MPI_Barrier(MPI_COMM_WORLD);
      work(200+200*r); MPI_Rsend(sb,500,MPI_DOUBLE,R,2,MPI_COMM_WORLD); MPI_Wait(&q,MPI_STATUS_IGNORE);} }
  else if(!strcmp(m,"waitany")){ for(int i=0;i<it;i++){ MPI_Request q[2]; work(300+400*(r%2)); MPI_Issend(sb,100,MPI_DOUBLE,R,3,MPI_COMM_WORLD,&q[0]);
      MPI_Irecv(rb,100,MPI_DOUBLE,L,3,MPI_COMM_WORLD,&q[1]); for(int k=0;k<2;k++){ int idx; MPI_Waitany(2,q,&idx,MPI_STATUS_IGNORE); work(50);} } }
  else if(!strcmp(m,"bigcoll")){ for(int i=0;i<it;i++){ work(500+300*(r==(i%n))); MPI_Bcast(sb,1<<16,MPI_DOUBLE,i%n,MPI_COMM_WORLD);
      MPI_Reduce(sb,rb,1<<15,MPI_DOUBLE,MPI_SUM,(i+1)%n,MPI_COMM_WORLD);} }
  else if(!strcmp(m,"allgatherv")){ int c[64],d[64],k=0; for(int p=0;p<n;p++){c[p]=300*(p+1);d[p]=k;k+=c[p];}
    for(int i=0;i<it;i++){ work(300+200*r); MPI_Allgatherv(sb,c[r],MPI_DOUBLE,rb,c,d,MPI_DOUBLE,MPI_COMM_WORLD);} }
  else if(!strcmp(m,"neighbor")){ MPI_Comm cart; int dims[1]={n},per[1]={1}; MPI_Cart_create(MPI_COMM_WORLD,1,dims,per,0,&cart);
    for(int i=0;i<it;i++){ work(300+300*((r+i)%2)); MPI_Neighbor_alltoall(sb,700,MPI_DOUBLE,rb,700,MPI_DOUBLE,cart);} MPI_Comm_free(&cart); }
  else if(!strcmp(m,"testsome")){ for(int i=0;i<it;i++){ if(r==0){ MPI_Request q[64]; int idx[64],out,left=n-1;
        for(int p=1;p<n;p++) MPI_Irecv(rb+p*256,256,MPI_DOUBLE,p,4,MPI_COMM_WORLD,&q[p-1]);
        while(left>0){ MPI_Testsome(n-1,q,&out,idx,MPI_STATUSES_IGNORE); if(out>0) left-=out; } work(100); }
      else { work(200*r+(i%4)*100); MPI_Send(sb,256,MPI_DOUBLE,0,4,MPI_COMM_WORLD);} } }
  else if(!strcmp(m,"passive")){ MPI_Win w; MPI_Win_create(rb,4096*sizeof(double),sizeof(double),MPI_INFO_NULL,MPI_COMM_WORLD,&w);
    for(int i=0;i<it;i++){ work(300+200*r); MPI_Win_lock(MPI_LOCK_SHARED,R,0,w); MPI_Put(sb,512,MPI_DOUBLE,R,0,512,MPI_DOUBLE,w); MPI_Win_unlock(R,w);
      if(i%10==0) MPI_Barrier(MPI_COMM_WORLD);} MPI_Win_free(&w); }
  else if(!strcmp(m,"replace")){ for(int i=0;i<it;i++){ work(250+250*(r==1)); MPI_Sendrecv_replace(sb,1500,MPI_DOUBLE,R,5,L,5,MPI_COMM_WORLD,MPI_STATUS_IGNORE);} }
  else if(!strcmp(m,"improbe")){ for(int i=0;i<it;i++){ if(r==0){ for(int p=1;p<n;p++){ int f=0; MPI_Message msg; MPI_Status st; while(!f) MPI_Improbe(MPI_ANY_SOURCE,6,MPI_COMM_WORLD,&f,&msg,&st);
          int c; MPI_Get_count(&st,MPI_DOUBLE,&c); MPI_Mrecv(rb,c,MPI_DOUBLE,&msg,MPI_STATUS_IGNORE);} work(200);}
      else { work(300*r); MPI_Send(sb,50*r,MPI_DOUBLE,0,6,MPI_COMM_WORLD);} } }
  else if(!strcmp(m,"vector")){ MPI_Datatype v; MPI_Type_vector(500,2,4,MPI_DOUBLE,&v); MPI_Type_commit(&v);
    for(int i=0;i<it;i++){ work(300+200*(r%2)); MPI_Request q[2]; MPI_Irecv(rb,1,v,L,7,MPI_COMM_WORLD,&q[0]); MPI_Isend(sb,1,v,R,7,MPI_COMM_WORLD,&q[1]); MPI_Waitall(2,q,MPI_STATUSES_IGNORE);}
    MPI_Type_free(&v); }
  else if(!strcmp(m,"dup")){ MPI_Comm c1,c2; MPI_Comm_dup(MPI_COMM_WORLD,&c1); MPI_Comm_dup(MPI_COMM_WORLD,&c2);
    for(int i=0;i<it;i++){ work(300+200*r); double v=r,s; MPI_Allreduce(&v,&s,1,MPI_DOUBLE,MPI_MAX,(i%2)?c1:c2); MPI_Send(sb,10,MPI_DOUBLE,R,8,c1); MPI_Recv(rb,10,MPI_DOUBLE,L,8,c1,MPI_STATUS_IGNORE);}
    MPI_Comm_free(&c1); MPI_Comm_free(&c2); }
  else if(!strcmp(m,"ireduce")){ for(int i=0;i<it;i++){ MPI_Request q; MPI_Ireduce(sb,rb,2048,MPI_DOUBLE,MPI_SUM,0,MPI_COMM_WORLD,&q); int f=0;
      for(int k=0;k<4;k++){ work(100+80*r); MPI_Test(&q,&f,MPI_STATUS_IGNORE);} if(!f) MPI_Wait(&q,MPI_STATUS_IGNORE);} }
  else if(!strcmp(m,"cancel")){ for(int i=0;i<it;i++){ MPI_Request q; MPI_Irecv(rb,10,MPI_DOUBLE,MPI_ANY_SOURCE,99,MPI_COMM_WORLD,&q);
      work(300+100*r); MPI_Cancel(&q); MPI_Wait(&q,MPI_STATUS_IGNORE); double v=1,s; MPI_Allreduce(&v,&s,1,MPI_DOUBLE,MPI_SUM,MPI_COMM_WORLD);} }
  MPI_Barrier(MPI_COMM_WORLD); MPI_Finalize(); return 0; }
