/* A btDiscreteDynamicsWorld that times the stages of its step (collision
 * parts, islands, solver, integration, sleeping) by wrapping the virtual
 * members that stepSimulation calls; the physics is Bullet's own. */
#ifndef BENCH_TIMED_WORLD_H
#define BENCH_TIMED_WORLD_H

#include <btBulletDynamicsCommon.h>

#include "bench_timing.h"

/* Milliseconds per stage, summed since the last reset(). */
struct timed_stages {
    double update_aabbs = 0.0;
    double broadphase_pairs = 0.0;
    double collide = 0.0; /* update_aabbs + broadphase_pairs + narrowphase */
    double islands = 0.0;
    double solve = 0.0;
    double integrate = 0.0; /* predict unconstrained motion + integrate transforms */
    double sleep = 0.0;
};

class timed_world : public btDiscreteDynamicsWorld {
public:
    timed_stages stages;

    timed_world(btDispatcher *dispatcher, btBroadphaseInterface *broadphase, btConstraintSolver *solver,
                btCollisionConfiguration *configuration)
        : btDiscreteDynamicsWorld(dispatcher, broadphase, solver, configuration)
    {
    }

    void reset() { stages = timed_stages(); }

    void performDiscreteCollisionDetection() override
    {
        double start = bench_now_ms();
        btDiscreteDynamicsWorld::performDiscreteCollisionDetection();
        stages.collide += bench_now_ms() - start;
    }

    void updateAabbs() override
    {
        double start = bench_now_ms();
        btDiscreteDynamicsWorld::updateAabbs();
        stages.update_aabbs += bench_now_ms() - start;
    }

    void computeOverlappingPairs() override
    {
        double start = bench_now_ms();
        btDiscreteDynamicsWorld::computeOverlappingPairs();
        stages.broadphase_pairs += bench_now_ms() - start;
    }

    void solveConstraints(btContactSolverInfo &info) override
    {
        double start = bench_now_ms();
        btDiscreteDynamicsWorld::solveConstraints(info);
        stages.solve += bench_now_ms() - start;
    }

protected:
    void calculateSimulationIslands() override
    {
        double start = bench_now_ms();
        btDiscreteDynamicsWorld::calculateSimulationIslands();
        stages.islands += bench_now_ms() - start;
    }

    void predictUnconstraintMotion(btScalar dt) override
    {
        double start = bench_now_ms();
        btDiscreteDynamicsWorld::predictUnconstraintMotion(dt);
        stages.integrate += bench_now_ms() - start;
    }

    void integrateTransforms(btScalar dt) override
    {
        double start = bench_now_ms();
        btDiscreteDynamicsWorld::integrateTransforms(dt);
        stages.integrate += bench_now_ms() - start;
    }

    void updateActivationState(btScalar dt) override
    {
        double start = bench_now_ms();
        btDiscreteDynamicsWorld::updateActivationState(dt);
        stages.sleep += bench_now_ms() - start;
    }
};

#endif
