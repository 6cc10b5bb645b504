// The fixture of a controller's tests: a memory Store on a FakeClock, an InProcessClient, and
// the controller under test with an InformerFactory of its own. StartController builds and
// starts both; TearDown stops the controller, then the informers, then the store.
//
//   class MyControllerTest : public ControllerTest<MyController, MyControllerOptions> {};
//   TEST_F(MyControllerTest, ...) { Create(...); StartController(); ... }
//
// The controller's options get clock_ as their clock, so its timers (retries, TTLs) move only
// when a test advances it.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "client/informer_factory.h"
#include "client/inprocess/inprocess_client.h"
#include "common/time.h"
#include "store/backend.h"
#include "store/store.h"

namespace allot::controllers {

template <class Controller, class Options>
class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), clock_);
    ASSERT_TRUE(store_->Open().ok());
    client_ = std::make_unique<client::InProcessClient>(*store_, clock_);
  }
  void TearDown() override {
    if (controller_) controller_->Stop();
    if (factory_) factory_->StopAll();
    controller_.reset();
    factory_.reset();
    store_->Close();
  }

  // Builds the controller with `opts`, starts it and its informers, and waits until their
  // caches hold what the store holds.
  void StartController(Options opts = {}) {
    factory_ = std::make_unique<client::InformerFactory>(*client_);
    opts.clock = &clock_;
    controller_ = std::make_unique<Controller>(*client_, *factory_, opts);
    ASSERT_TRUE(controller_->Start().ok());
    ASSERT_TRUE(factory_->StartAll().ok());
    ASSERT_TRUE(factory_->WaitForCacheSync(std::chrono::seconds(10)));
  }

  FakeClock clock_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<client::InProcessClient> client_;
  std::unique_ptr<client::InformerFactory> factory_;
  std::unique_ptr<Controller> controller_;
};

}  // namespace allot::controllers
